package main

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireMeter wraps a client transport and keeps the size of the last response's result as
// the server wrote it. Re-encoding what the SDK decoded would not do: it adds the fields
// the SDK always writes (readOnlyHint: false...) and drops those it does not know.
type wireMeter struct {
	mcp.Transport
	last atomic.Int64
}

func (m *wireMeter) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := m.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return meteredConn{c, m}, nil
}

type meteredConn struct {
	mcp.Connection
	m *wireMeter
}

func (c meteredConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.m.last.Store(int64(len(r.Result)))
	}
	return msg, err
}
