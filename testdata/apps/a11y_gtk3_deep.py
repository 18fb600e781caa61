#!/usr/bin/python3
"""GTK3 test app for the accessibility tests (engine/desktop/x11/atspi): a button and a
label inside twelve boxes that each wrap one child, as toolkits nest a file chooser's rows.
Prints "READY" once the window is mapped. Run with /usr/bin/python3 (python3-gi).
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

win = Gtk.Window(title="w365 a11y deep")
win.set_default_size(320, 160)
inner = Gtk.Box(spacing=6)
inner.pack_start(Gtk.Label(label="Deep label"), False, False, 0)
inner.pack_start(Gtk.Button(label="Deep button"), False, False, 0)
outer = inner
for _ in range(12):
    wrap = Gtk.Box()
    wrap.pack_start(outer, True, True, 0)
    outer = wrap
win.add(outer)
win.connect("destroy", Gtk.main_quit)
win.show_all()
GLib.timeout_add(700, lambda: print("READY", flush=True) and False)
Gtk.main()
