#!/usr/bin/python3
"""GTK3 screen with known text for OCR recall tests.

Shows the words of words.txt (next to this file) on a 1920x1080 undecorated window at
(0,0): labels of five words in a 4-column grid, every seventh as a button. Arguments:
MODE [POINTS]. MODE "light" or "dark" (run with GTK_THEME=Adwaita:dark for a dark
theme), or "mixed": a dark column, a blue column with white text and light columns.
POINTS is the font size (default 9). Prints READY once drawn.
Run with /usr/bin/python3 (python3-gi).
"""
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

mode = sys.argv[1] if len(sys.argv) > 1 else "light"
points = sys.argv[2] if len(sys.argv) > 2 else "9"
here = os.path.dirname(os.path.abspath(__file__))
words = open(os.path.join(here, "words.txt")).read().split()

css = Gtk.CssProvider()
css.load_from_data(("""
* { font-size: %spt; }
.dark { background-color: #262a2f; color: #dfe3e8; }
.blue { background-color: #1565c0; color: #ffffff; }
""" % points).encode())
Gtk.StyleContext.add_provider_for_screen(
    __import__("gi.repository.Gdk", fromlist=["Gdk"]).Screen.get_default(), css,
    Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)

win = Gtk.Window(title="w365 ocr " + mode)
win.set_decorated(False)
win.set_default_size(1920, 1080)
win.move(0, 0)
grid = Gtk.Grid(column_homogeneous=True, row_spacing=10, column_spacing=0)
grid.set_border_width(0)
cols = 4
columns = []
for c in range(cols):
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=34)
    box.set_border_width(24)
    ev = Gtk.EventBox()
    ev.add(box)
    if mode == "mixed" and c == 0:
        ev.get_style_context().add_class("dark")
        box.get_style_context().add_class("dark")
    if mode == "mixed" and c == 3:
        ev.get_style_context().add_class("blue")
        box.get_style_context().add_class("blue")
    grid.attach(ev, c, 0, 1, 1)
    columns.append(box)
chunks = [words[i:i + 5] for i in range(0, len(words), 5)]
for i, chunk in enumerate(chunks):
    text = " ".join(chunk)
    if i % 7 == 3:
        w = Gtk.Button(label=text)
    else:
        w = Gtk.Label(label=text, xalign=0)
    columns[i % cols].pack_start(w, False, False, 0)
win.add(grid)
win.connect("destroy", Gtk.main_quit)
win.show_all()
GLib.timeout_add(1200, lambda: print("READY", flush=True) and False)
Gtk.main()
