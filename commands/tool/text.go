package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// HumanText is the one-line (or few-line) human form of an output value.
func HumanText(out any) string {
	if out == nil {
		return ""
	}
	if tx, ok := out.(Texter); ok {
		return tx.Text()
	}
	v := reflect.ValueOf(out)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if tx, ok := v.Interface().(Texter); ok {
		return tx.Text()
	}
	if v.Kind() != reflect.Struct {
		b, _ := json.Marshal(v.Interface())
		return string(b)
	}
	var parts []string
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name := JSONName(f)
		if name == "" {
			continue
		}
		fv := v.Field(i)
		if fv.IsZero() && strings.Contains(f.Tag.Get("json"), "omitempty") {
			continue
		}
		switch fv.Kind() {
		case reflect.String:
			parts = append(parts, name+"="+strconv.Quote(fv.String()))
		case reflect.Struct, reflect.Slice, reflect.Map, reflect.Pointer:
			b, _ := json.Marshal(fv.Interface())
			parts = append(parts, name+"="+string(b))
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", name, fv.Interface()))
		}
	}
	return strings.Join(parts, " ")
}
