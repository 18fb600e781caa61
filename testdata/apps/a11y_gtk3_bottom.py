#!/usr/bin/python3
"""GTK3 test app for the accessibility tests (engine/desktop/x11/atspi): a combo box at the
bottom of the screen, as a save dialog's file type. GTK opens its menu with the active item
over the box: the pop-up is moved up to fit on the screen and its items scrolled down, so
that they run past its bottom (Gnumeric's Save As dialog). Beside it, a spin button and a
scale that take no input (insensitive, as Transmission's speed limit while its check box is
off). All of it lies in the one page of a notebook that shows no tabs (Gnumeric's sheets), whose
page GTK places at -1,-1 with a size of -1x-1.

Prints "GEOM combo <x> <y> <w> <h>" in screen coordinates once the window is mapped, then
"READY"; prints "CHANGED <item>" when an item is chosen. Run with /usr/bin/python3
(python3-gi).
"""
import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

win = Gtk.Window(title="w365 a11y GTK3 combo")
win.set_default_size(400, 60)
combo = Gtk.ComboBoxText()
for i in range(1, 11):
    combo.append_text("File type %d" % i)
combo.set_active(1)
combo.connect("changed", lambda c: print("CHANGED", c.get_active_text(), flush=True))
box = Gtk.Box(spacing=6)
box.set_border_width(12)
box.pack_start(combo, True, True, 0)
spin = Gtk.SpinButton.new_with_range(0, 1000, 1)
spin.set_value(100)
spin.set_sensitive(False)
box.pack_start(spin, False, False, 0)
scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 10, 1)
scale.set_size_request(100, -1)
scale.set_sensitive(False)
box.pack_start(scale, False, False, 0)
book = Gtk.Notebook()
book.set_show_tabs(False)
book.append_page(box, Gtk.Label(label="Sheet1"))
win.add(book)
win.connect("destroy", Gtk.main_quit)
win.move(100, Gdk.get_default_root_window().get_height() - 120)


def report():
    gdkwin = win.get_window()
    if gdkwin is None:
        return True
    _, ox, oy = gdkwin.get_origin()
    a = combo.get_allocation()
    x, y = combo.translate_coordinates(win, 0, 0)
    print("GEOM combo", ox + x, oy + y, a.width, a.height, flush=True)
    print("READY", flush=True)
    return False


win.show_all()
GLib.timeout_add(700, report)
Gtk.main()
