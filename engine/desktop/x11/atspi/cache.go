//go:build linux

package atspi

import (
	"context"
	"sort"

	"github.com/godbus/dbus/v5"
)

// cachePath is where an application serves org.a11y.atspi.Cache.
const cachePath = dbus.ObjectPath("/org/a11y/atspi/cache")

// cacheAfter is how many objects a walk meets before it reads the application's cache, which
// holds the whole application: the GetItems of a Chromium window (~460 objects) costs about
// 10 ms, the default tree of that window (three levels, 11 objects met) 3 ms without it.
const cacheAfter = 16

// cacheItem is one object of org.a11y.atspi.Cache.GetItems, a((so)(so)(so)iiassusau): the
// object, its application, its parent, its index in the parent, its child count, its
// interfaces, name, role, description and states. The fields are exported, in the order of
// the signature, for godbus's Store.
type cacheItem struct {
	Ref, App, Parent objRef
	Index, Count     int32
	Interfaces       []string
	Name             string
	Role             uint32
	Description      string
	States           []uint32
}

// appCache is an application's cache by object path, each object's children by index.
//
// atk-bridge answers GetItems with every object it registered (the tree as it was when the
// bridge started, then each child announced by children-changed), each with the role, name,
// states, parent, index and child count read from the object at the time of the call. Only
// the membership can be out of date: an object's children are taken from the cache only when
// it holds exactly as many as the object counts now, one at each index (complete).
type appCache struct {
	bus   string
	items map[dbus.ObjectPath]*cacheItem
	kids  map[dbus.ObjectPath][]*cacheItem
}

func newAppCache(bus string, items []cacheItem) *appCache {
	c := &appCache{bus: bus, items: make(map[dbus.ObjectPath]*cacheItem, len(items)), kids: map[dbus.ObjectPath][]*cacheItem{}}
	for i := range items {
		it := &items[i]
		c.items[it.Ref.Path] = it
		c.kids[it.Parent.Path] = append(c.kids[it.Parent.Path], it)
	}
	for _, ks := range c.kids {
		sort.Slice(ks, func(i, j int) bool { return ks[i].Index < ks[j].Index })
	}
	return c
}

// item is the cache's object r, or nil (also for a nil cache).
func (c *appCache) item(r ref) *cacheItem {
	if c == nil || r.bus != c.bus {
		return nil
	}
	return c.items[r.path]
}

// complete returns the children of it in order, or false when the cache does not hold
// exactly the it.Count children at indexes 0..Count-1. A count of -1 is an object that
// manages its descendants (GTK 2's tree views): the cache holds none of them.
func (c *appCache) complete(it *cacheItem) ([]*cacheItem, bool) {
	ks := c.kids[it.Ref.Path]
	if it.Count < 0 || int(it.Count) != len(ks) {
		return nil, false
	}
	for i, k := range ks {
		if int(k.Index) != i {
			return nil, false
		}
	}
	return ks, true
}

// readCache asks bus for its cache: nil (and no error) when the application serves none.
func (w *walker) readCache(ctx context.Context, bus string) (*appCache, error) {
	var items []cacheItem
	b := &batch{conn: w.conn, peers: w.peers}
	c := b.add(ref{bus, cachePath}, "org.a11y.atspi.Cache.GetItems", []any{&items})
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	if c.err != nil || len(items) == 0 {
		return nil, nil
	}
	return newAppCache(bus, items), nil
}
