#!/usr/bin/python3
"""GTK3 application screens with known text for the OCR benchmark.

Usage: ui_gtk.py SCENE. Draws one ordinary application screen in decorated windows (the
window manager draws the title bars) and, once it is drawn, prints the words a reader
should find on the screen as one line "TRUTH <words>", then "READY". The window titles
are part of the truth: the window manager draws them from the title set here. Run with
GTK_THEME=Adwaita:dark for a dark theme, and with /usr/bin/python3 (python3-gi).

Scenes:
  form     the case that started the benchmark: a small window "Inventory
           Reconciliation" with a label, an empty entry and a button
  app      a settings window: menu bar, tabs, labelled entries, check boxes, grey helper
           text, coloured buttons, a sidebar and a status bar
  menu     a window with its File menu open
  covered  a window of labels partly covered by a second window; only what shows counts
  dialog   a confirmation dialog with grey secondary text (held out)
  table    a file list with column headers and a path bar (held out)
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

scene = sys.argv[1] if len(sys.argv) > 1 else "form"
truth = []
visible_checks = []  # (widget, words): words count only where the widget is not covered
covers = []  # windows whose frames hide what lies below them

css = Gtk.CssProvider()
css.load_from_data(b"""
.small { font-size: 8pt; }
.status { padding: 2px 8px; }
""")
Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), css,
                                         Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)


def window(title, w, h, x, y):
    win = Gtk.Window(title=title)
    win.set_default_size(w, h)
    win.move(x, y)
    win.connect("destroy", Gtk.main_quit)
    truth.extend(title.split())
    return win


def label(text, *classes, **kw):
    lab = Gtk.Label(label=text, **kw)
    for c in classes:
        lab.get_style_context().add_class(c)
    truth.extend(text.split())
    return lab


def button(text, *classes):
    b = Gtk.Button(label=text)
    for c in classes:
        b.get_style_context().add_class(c)
    truth.extend(text.split())
    return b


def menubar(names):
    mb = Gtk.MenuBar()
    items = []
    for n in names:
        it = Gtk.MenuItem(label=n)
        mb.append(it)
        items.append(it)
        truth.append(n)
    return mb, items


def form():
    win = window("Inventory Reconciliation", 320, 110, 600, 400)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, border_width=10)
    box.pack_start(label("Target Area", xalign=0), False, False, 0)
    box.pack_start(Gtk.Entry(), False, False, 0)
    box.pack_start(button("Press Me"), False, False, 0)
    win.add(box)
    return [win]


def app():
    win = window("Project Tracker Settings", 1100, 680, 200, 120)
    outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    mb, _ = menubar(["File", "Edit", "View", "Tools", "Help"])
    outer.pack_start(mb, False, False, 0)
    body = Gtk.Box(spacing=0)
    side = Gtk.ListBox()
    for n in ["Overview", "Members", "Milestones", "Integrations", "Billing"]:
        side.add(label(n, xalign=0, margin=8))
    side.set_size_request(200, -1)
    body.pack_start(side, False, False, 0)
    nb = Gtk.Notebook()
    for i, tab in enumerate(["General", "Network", "Appearance", "Advanced"]):
        page = Gtk.Grid(row_spacing=10, column_spacing=12, border_width=18)
        if i == 0:
            page.attach(label("Display name", xalign=1), 0, 0, 1, 1)
            e = Gtk.Entry(text="Marketing team")
            truth.extend(["Marketing", "team"])
            page.attach(e, 1, 0, 1, 1)
            page.attach(label("Shown to everyone who joins the project", "dim-label", "small", xalign=0), 1, 1, 1, 1)
            page.attach(label("Reminder interval", xalign=1), 0, 2, 1, 1)
            combo = Gtk.ComboBoxText()
            combo.append_text("Weekly")
            combo.set_active(0)
            truth.append("Weekly")
            page.attach(combo, 1, 2, 1, 1)
            for r, t in enumerate(["Enable notifications", "Start minimized", "Share usage statistics"]):
                cb = Gtk.CheckButton(label=t, active=(r != 1))
                truth.extend(t.split())
                page.attach(cb, 1, 3 + r, 1, 1)
            page.attach(label("Statistics never include file names or contents.", "dim-label", "small", xalign=0), 1, 6, 1, 1)
            bb = Gtk.Box(spacing=8)
            bb.pack_start(button("Delete project", "destructive-action"), False, False, 0)
            bb.pack_end(button("Save changes", "suggested-action"), False, False, 0)
            bb.pack_end(button("Cancel"), False, False, 0)
            page.attach(bb, 1, 7, 1, 1)
        tl = label(tab)
        nb.append_page(page, tl)
    body.pack_start(nb, True, True, 0)
    outer.pack_start(body, True, True, 0)
    status = label("Ready: 3 members online, last sync 09:42", "status", "small", xalign=0)
    outer.pack_end(status, False, False, 0)
    win.add(outer)
    return [win]


def menu():
    win = window("Quarterly Report Editor", 700, 460, 300, 200)
    outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    mb, items = menubar(["File", "Edit", "Insert", "Format", "Help"])
    sub = Gtk.Menu()
    for t, acc in [("New Document", "Ctrl+N"), ("Open Recent", None), ("Save As", "Shift+Ctrl+S"),
                   ("Export PDF", None), ("Print Preview", "Ctrl+P"), ("Close Window", "Ctrl+W")]:
        it = Gtk.MenuItem(label=t)
        truth.extend(t.split())
        if acc:
            key, mods = Gtk.accelerator_parse(acc.replace("Ctrl+", "<Control>").replace("Shift+", "<Shift>"))
            it.get_child().set_accel(key, mods)
            truth.append(acc)
        sub.append(it)
    items[0].set_submenu(sub)
    outer.pack_start(mb, False, False, 0)
    outer.pack_start(label("Revenue grew in every region except the north.", margin=40), False, False, 0)
    win.add(outer)
    # Only the menu's items are visible below the open menu; the body label is covered
    # only if the menu overlaps it, which visible_checks works out.
    visible_checks.append((outer.get_children()[1], truth[-8:]))
    del truth[-8:]

    def open_menu():
        items[0].select()
        sub.show_all()
        sub.popup_at_widget(items[0], Gdk.Gravity.SOUTH_WEST, Gdk.Gravity.NORTH_WEST, None)
        covers.append(sub.get_toplevel())
        return False
    GLib.timeout_add(600, open_menu)
    return [win]


def covered():
    back = window("Shipment Tracker", 900, 560, 120, 90)
    grid = Gtk.Grid(row_spacing=22, column_spacing=40, border_width=24)
    words = ("harbor crane ledger pallet invoice carrier customs freight manifest parcel "
             "courier depot route voyage cargo vessel tariff dock berth barge convoy "
             "transit weight volume").split()
    for i, w in enumerate(words):
        lab = Gtk.Label(label=w.capitalize() + " " + str(100 + i))
        grid.attach(lab, i % 4, i // 4, 1, 1)
        visible_checks.append((lab, [w.capitalize(), str(100 + i)]))
    back.add(grid)
    front = window("Quick Note", 420, 260, 560, 330)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, border_width=14)
    box.pack_start(label("Remember to confirm the pickup window", xalign=0), False, False, 0)
    box.pack_end(button("Dismiss"), False, False, 0)
    front.add(box)
    front.set_transient_for(back)
    covers.append(front)
    return [back, front]


def dialog():
    win = window("Backup Manager", 800, 500, 100, 100)
    win.add(label("No backups yet", "dim-label"))
    d = Gtk.MessageDialog(transient_for=win, modal=True, message_type=Gtk.MessageType.WARNING,
                          buttons=Gtk.ButtonsType.NONE, text="Delete 3 snapshots permanently?")
    truth.extend("Delete 3 snapshots permanently?".split())
    d.format_secondary_text("Deleted snapshots cannot be restored from the archive later.")
    truth.extend("Deleted snapshots cannot be restored from the archive later.".split())
    d.add_button("Keep", Gtk.ResponseType.CANCEL)
    d.add_button("Delete", Gtk.ResponseType.OK)
    truth.extend(["Keep", "Delete"])
    d.get_widget_for_response(Gtk.ResponseType.OK).get_style_context().add_class("destructive-action")
    d.set_title("Confirm")
    truth.append("Confirm")
    covers.append(d)
    # The main window's label sits in its centre, under the dialog.
    visible_checks.append((win.get_child(), "No backups yet".split()))
    del truth[truth.index("No"):truth.index("No") + 3]
    GLib.timeout_add(300, lambda: d.show_all() and False)
    return [win]


def table():
    win = window("Files - Documents", 1000, 600, 400, 150)
    outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    path = Gtk.Box(spacing=4, border_width=6)
    for p in ["home", "alex", "Documents"]:
        path.pack_start(button(p), False, False, 0)
    outer.pack_start(path, False, False, 0)
    store = Gtk.ListStore(str, str, str)
    rows = [("budget-2026.ods", "48 KB", "Yesterday"), ("contract-draft.pdf", "1.2 MB", "Monday"),
            ("holiday photos", "12 items", "March"), ("notes.txt", "3 KB", "Today"),
            ("presentation.odp", "7.8 MB", "Friday"), ("tax receipts", "31 items", "January")]
    for r in rows:
        store.append(list(r))
        for c in r:
            truth.extend(c.split())
    tv = Gtk.TreeView(model=store)
    for i, h in enumerate(["Name", "Size", "Modified"]):
        col = Gtk.TreeViewColumn(h, Gtk.CellRendererText(), text=i)
        col.set_min_width(220)
        tv.append_column(col)
        truth.append(h)
    outer.pack_start(tv, True, True, 0)
    outer.pack_end(label("6 items, 21.3 MB free", "dim-label", "small", xalign=0, margin=6), False, False, 0)
    win.add(outer)
    return [win]


def rect(w):
    """The screen rectangle of a widget, or of a toplevel's frame."""
    gw = w.get_window()
    if isinstance(w, Gtk.Window):
        r = gw.get_frame_extents()
        return r.x, r.y, r.width, r.height
    top = w.get_toplevel()
    ox, oy = top.get_window().get_origin()[1:]
    x, y = w.translate_coordinates(top, 0, 0)
    a = w.get_allocation()
    return ox + x, oy + y, a.width, a.height


def overlaps(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def report():
    # On a busy machine the windows may not be mapped yet: wait until they are, then give
    # them time to paint.
    if not all(w.get_window() and w.get_window().is_viewable() for w in wins + covers):
        return True
    GLib.timeout_add(800, emit)
    return False


def emit():
    words = list(truth)
    for w, ws in visible_checks:
        if not any(overlaps(rect(w), rect(c)) for c in covers if c.get_window()):
            words.extend(ws)
    print("TRUTH " + " ".join(words), flush=True)
    print("READY", flush=True)
    return False


wins = {"form": form, "app": app, "menu": menu, "covered": covered, "dialog": dialog, "table": table}[scene]()
for w in wins:
    w.show_all()
GLib.timeout_add(1000, report)
Gtk.main()
