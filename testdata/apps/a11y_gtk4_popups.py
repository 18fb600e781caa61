#!/usr/bin/python3
"""GTK4 pop-ups for the accessibility tests (engine/desktop/x11/atspi): a drop-down, a menu
button with a popover menu, one with a named popover holding a button, and an icon-only button
with a tooltip and no label.

A GTK4 pop-up is a surface (an override-redirect X window) of its own. Prints
"GEOM <id> <x> <y> <w> <h>" per widget in WINDOW coordinates, then "READY"; "SELECTED <item>"
when the drop-down's selection changes, "ACTIVATED <action>" when a menu item is chosen,
"CLICKED icon" or "CLICKED undo" on a click of the icon or the popover's button. Run with /usr/bin/python3 (python3-gi, gir1.2-gtk-4.0).
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, Gtk  # noqa: E402

from a11y_gtk4 import run  # noqa: E402

colours = ["Red", "Green", "Blue", "Yellow"]


def build(application, win):
    widgets = {}
    win.set_default_size(420, 300)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, halign=Gtk.Align.START)
    for side in ("top", "bottom", "start", "end"):
        getattr(box, "set_margin_" + side)(40)
    win.set_child(box)

    drop = Gtk.DropDown.new_from_strings(colours)
    drop.update_property([Gtk.AccessibleProperty.LABEL], ["Colour"])
    drop.connect("notify::selected", lambda d, _: print("SELECTED", colours[d.get_selected()], flush=True))
    box.append(drop)
    widgets["drop"] = drop

    menu = Gio.Menu()
    for label in ("Open", "Save", "Quit"):
        menu.append(label, "app." + label.lower())
        action = Gio.SimpleAction.new(label.lower(), None)
        action.connect("activate", lambda a, _: print("ACTIVATED", a.get_name(), flush=True))
        application.add_action(action)
    mb = Gtk.MenuButton(label="File", menu_model=menu)
    box.append(mb)
    widgets["menu"] = mb

    # A pop-up with a name of its own.
    undo = Gtk.Button(label="Undo")
    undo.connect("clicked", lambda b: print("CLICKED undo", flush=True))
    pop = Gtk.Popover(child=undo)
    pop.update_property([Gtk.AccessibleProperty.LABEL], ["Edit actions"])
    edit = Gtk.MenuButton(label="Edit", popover=pop)
    box.append(edit)
    widgets["edit"] = edit

    icon = Gtk.Button(icon_name="edit-find-symbolic", tooltip_text="Search")
    icon.connect("clicked", lambda b: print("CLICKED icon", flush=True))
    box.append(icon)
    widgets["icon"] = icon

    return widgets


run(sys.argv[1] if len(sys.argv) > 1 else "w365 a11y GTK4 popups", build)
