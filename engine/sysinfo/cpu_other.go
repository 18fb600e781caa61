//go:build !linux

package sysinfo

import (
	"context"
	"strings"

	"github.com/shirou/gopsutil/v4/cpu"
)

// cpuFacts is the first processor's model and the physical and logical core counts as
// gopsutil reads them (0 or "" where it cannot).
func cpuFacts(ctx context.Context) (model string, cores, logical int) {
	if cs, err := cpu.InfoWithContext(ctx); err == nil && len(cs) > 0 {
		model = strings.TrimSpace(cs[0].ModelName)
	}
	logical, _ = cpu.CountsWithContext(ctx, true)
	cores, _ = cpu.CountsWithContext(ctx, false)
	return model, cores, logical
}
