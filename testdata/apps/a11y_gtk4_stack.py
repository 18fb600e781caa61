#!/usr/bin/python3
"""GTK4 stack for the accessibility tests (engine/desktop/x11/atspi): two pages of a stack,
each with a button at the same place, as gnome-clocks' World and Alarms, and a button a scroll
view holds below the window's bottom edge (GTK 4 keeps it VISIBLE there, as gnome-clocks' view
switcher bar for narrow windows once its window had grown). The app shows the World page, then switches to the
Alarms page itself: GTK 4 (4.8) keeps the page it hid VISIBLE at the place it had, over AT-SPI. Prints "GEOM <id> <x> <y> <w> <h>" per widget in WINDOW
coordinates, then "READY" once the Alarms page shows. Run with /usr/bin/python3 (python3-gi,
gir1.2-gtk-4.0).
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import GLib, Gtk  # noqa: E402

from a11y_gtk4 import run  # noqa: E402


def build(application, win):
    win.set_default_size(420, 300)
    stack = Gtk.Stack()
    widgets = {}
    for name, label in (("world", "Add World Clock"), ("alarms", "Add Alarm")):
        button = Gtk.Button(label=label, halign=Gtk.Align.CENTER, valign=Gtk.Align.CENTER)
        stack.add_titled(button, name, name.title())
        widgets[name] = button
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    box.append(Gtk.StackSwitcher(stack=stack))
    stack.set_vexpand(True)
    box.append(stack)
    inner = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    spacer = Gtk.Label(label="Scroll down")
    spacer.set_size_request(-1, 2000)
    inner.append(spacer)
    inner.append(Gtk.Button(label="Below the window"))
    below = Gtk.ScrolledWindow(child=inner, min_content_height=60)
    box.append(below)
    win.set_child(box)
    GLib.timeout_add(500, lambda: stack.set_visible_child_name("alarms") and False)
    return {"alarms": widgets["alarms"]}


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else "w365 a11y GTK4 stack", build)
