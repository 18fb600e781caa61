#!/usr/bin/python3
"""GTK3 test app for the accessibility tests (engine/desktop/x11/atspi): a spin button whose
- and + buttons lie right of its number, as GTK 3 draws every horizontal one.

Prints "READY" once the window is mapped and "VALUE <n>" whenever the value changes.
Run with /usr/bin/python3 (python3-gi).
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

win = Gtk.Window(title="w365 a11y GTK3 spin")
win.move(100, 120)
box = Gtk.Box(spacing=8)
box.set_border_width(12)
win.add(box)
box.pack_start(Gtk.Label(label="Copies"), False, False, 0)
spin = Gtk.SpinButton.new_with_range(0, 100, 1)
spin.set_value(12)
# A narrow number, as the font chooser's size has: the centre lies on the - button.
spin.set_width_chars(2)
spin.connect("value-changed", lambda s: print("VALUE", s.get_value_as_int(), flush=True))
box.pack_start(spin, False, False, 0)
# Something else holds the focus first, as a search field did in GTK 3's font chooser.
other = Gtk.Entry()
box.pack_start(other, False, False, 0)
win.connect("destroy", Gtk.main_quit)
win.show_all()
other.grab_focus()
GLib.timeout_add(700, lambda: print("READY", flush=True) and False)
Gtk.main()
