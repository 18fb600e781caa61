#!/usr/bin/python3
"""GTK4 print-settings window for the agent tasks (test/tasks): a switch, a spin button
and a drop-down, each with a label beside it, and a Print button that prints the settings
as "duplex=<bool> copies=<n> paper=<name>" and quits. Run with /usr/bin/python3 (python3-gi).
"""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gtk  # noqa: E402

app = Gtk.Application(application_id="org.w365.PrintTask")


def build(app):
    win = Gtk.ApplicationWindow(application=app, title="Print settings")
    grid = Gtk.Grid(row_spacing=8, column_spacing=12, margin_top=12, margin_bottom=12, margin_start=12, margin_end=12)
    duplex = Gtk.Switch(halign=Gtk.Align.START)
    copies = Gtk.SpinButton.new_with_range(1, 20, 1)
    paper = Gtk.DropDown.new_from_strings(["A4", "Letter", "A3"])
    for row, (text, w) in enumerate([("Double-sided", duplex), ("Copies", copies), ("Paper", paper)]):
        label = Gtk.Label(label=text, xalign=0)
        grid.attach(label, 0, row, 1, 1)
        grid.attach(w, 1, row, 1, 1)
    button = Gtk.Button(label="Print")

    def done(_):
        item = paper.get_selected_item()
        print(f"duplex={duplex.get_active()} copies={copies.get_value_as_int()} paper={item.get_string()}", flush=True)
        app.quit()

    button.connect("clicked", done)
    grid.attach(button, 1, 3, 1, 1)
    win.set_child(grid)
    win.present()


app.connect("activate", build)
app.run(None)
