#!/usr/bin/python3
"""GTK3 test app for the accessibility tests (engine/desktop/x11/atspi): a tree view whose Task
column shows an icon beside a text set as markup, as xfce4-taskmanager's does. GTK 3 makes such
a cell one accessible with a cell of its own for each renderer, and names only those.

Prints "READY" once the window is mapped.
Run with /usr/bin/python3 (python3-gi).
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

win = Gtk.Window(title="w365 a11y GTK3 cells")
win.move(100, 120)
win.set_default_size(420, 240)
store = Gtk.ListStore(str, str, int)
for icon, markup, pid in [
    ("system-run", "<b>alpha-daemon</b>", 101),
    ("utilities-terminal", "bravo <i>shell</i>", 202),
    ("text-x-generic", "charlie &amp; co", 303),
]:
    store.append([icon, markup, pid])
view = Gtk.TreeView(model=store)
task = Gtk.TreeViewColumn("Task")
icon = Gtk.CellRendererPixbuf()
task.pack_start(icon, False)
task.add_attribute(icon, "icon-name", 0)
text = Gtk.CellRendererText()
task.pack_start(text, True)
task.add_attribute(text, "markup", 1)
view.append_column(task)
view.append_column(Gtk.TreeViewColumn("PID", Gtk.CellRendererText(), text=2))
win.add(view)
win.connect("destroy", Gtk.main_quit)
win.show_all()
GLib.timeout_add(700, lambda: print("READY", flush=True) and False)
Gtk.main()
