#!/usr/bin/python3
"""GTK 3 windows for the OCR benchmark's real-blind8 set. "dark": a settings page on
Adwaita dark (run with GTK_THEME=Adwaita:dark) whose hints are small grey labels (the
theme's dim-label style at 8 pt) over a status bar; "grid": a spreadsheet-like table of
figures with grid lines in an 8 pt font. Prints "TRUTH <words>" (the title included) and
"READY" once drawn. Run with /usr/bin/python3 (python3-gi)."""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

truth = []


def said(text):
    truth.extend(text.split())
    return text


def label(text, dim=False, size=None):
    l = Gtk.Label(label=said(text), xalign=0)
    if dim:
        l.get_style_context().add_class("dim-label")
    if size:
        l.set_markup('<span size="%s">%s</span>' % (size, GLib.markup_escape_text(text)))
    return l


def dark(w):
    w.set_title(said("Power settings"))
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
    inner = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4, margin=16)
    for title, hint, on in [("Dim the screen", "After 2 minutes without input", True),
                            ("Automatic suspend", "Only when running on battery", False),
                            ("Show battery percentage", "Shown in the top bar next to the icon", True)]:
        row = Gtk.Box(spacing=12)
        text = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        text.pack_start(label(title), False, False, 0)
        text.pack_start(label(hint, dim=True, size="small"), False, False, 0)
        row.pack_start(text, True, True, 0)
        s = Gtk.Switch(active=on, valign=Gtk.Align.CENTER)
        row.pack_end(s, False, False, 0)
        inner.pack_start(row, False, False, 6)
    inner.pack_start(label("Estimated runtime 4 h 12 min at 38% load", dim=True, size="x-small"), False, False, 6)
    box.pack_start(inner, True, True, 0)
    bar = Gtk.Statusbar()
    bar.push(0, said("Profile: balanced, saved 09:41"))
    box.pack_end(bar, False, False, 0)
    w.add(box)
    w.resize(460, 340)


def grid(w):
    w.set_title(said("Quarterly figures"))
    cols = ["Region", "Q1", "Q2", "Q3", "Q4", "Total"]
    rows = [["North", "1,204", "1,318", "997", "1,450", "4,969"],
            ["South", "862", "905", "1,021", "1,133", "3,921"],
            ["East", "2,310", "2,045", "2,187", "2,402", "8,944"],
            ["West", "455", "512", "630", "701", "2,298"],
            ["Online", "3,876", "4,120", "4,388", "5,015", "17,399"]]
    store = Gtk.ListStore(*([str] * len(cols)))
    for r in rows:
        store.append([said(c) for c in r])
    view = Gtk.TreeView(model=store)
    view.set_grid_lines(Gtk.TreeViewGridLines.BOTH)
    for i, c in enumerate(cols):
        cell = Gtk.CellRendererText(font="Sans 8", xalign=0 if i == 0 else 1)
        col = Gtk.TreeViewColumn(said(c), cell, text=i)
        col.set_min_width(70)
        view.append_column(col)
    w.add(view)
    w.resize(520, 220)


w = Gtk.Window()
{"dark": dark, "grid": grid}[sys.argv[1]](w)
w.move(400, 220)
w.connect("destroy", Gtk.main_quit)
w.show_all()
GLib.timeout_add(800, lambda: print("TRUTH " + " ".join(truth), "READY", sep="\n", flush=True))
Gtk.main()
