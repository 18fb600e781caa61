#!/usr/bin/python3
"""GTK3 test app for the accessibility tests (engine/desktop/x11/atspi): a form with known widgets.

Prints one line per widget, "GEOM <id> <x> <y> <w> <h>" in screen coordinates, once the
window is mapped, then "READY"; prints "CLICKED <label>" when a button is clicked and
"TEXT <id> <text>" when an entry changes. Run with /usr/bin/python3 (python3-gi).
Arguments: [title]
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

title = sys.argv[1] if len(sys.argv) > 1 else "w365 a11y GTK3"
win = Gtk.Window(title=title)
win.set_default_size(480, 320)
win.move(100, 120)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
box.set_border_width(12)
win.add(box)

widgets = {}

label = Gtk.Label(label="Please sign in")
box.pack_start(label, False, False, 0)
widgets["label"] = label

row = Gtk.Box(spacing=6)
ulabel = Gtk.Label(label="Username")
entry = Gtk.Entry()
entry.get_accessible().set_name("Username")
row.pack_start(ulabel, False, False, 0)
row.pack_start(entry, True, True, 0)
box.pack_start(row, False, False, 0)
widgets["entry"] = entry

check = Gtk.CheckButton(label="Remember me")
box.pack_start(check, False, False, 0)
widgets["check"] = check

buttons = Gtk.Box(spacing=6)
cancel = Gtk.Button(label="Cancel")
submit = Gtk.Button(label="Submit")
buttons.pack_end(submit, False, False, 0)
buttons.pack_end(cancel, False, False, 0)
box.pack_end(buttons, False, False, 0)
widgets["cancel"] = cancel
widgets["submit"] = submit


def clicked(b):
    print("CLICKED", b.get_label(), flush=True)


submit.connect("clicked", clicked)
cancel.connect("clicked", clicked)
entry.connect("changed", lambda e: print("TEXT entry", e.get_text(), flush=True))
win.connect("destroy", Gtk.main_quit)


def report():
    gdkwin = win.get_window()
    if gdkwin is None:
        return True
    _, ox, oy = gdkwin.get_origin()
    for wid, w in widgets.items():
        a = w.get_allocation()
        x, y = w.translate_coordinates(win, 0, 0)
        print("GEOM", wid, ox + x, oy + y, a.width, a.height, flush=True)
    print("READY", flush=True)
    return False


win.show_all()
GLib.timeout_add(700, report)
Gtk.main()
