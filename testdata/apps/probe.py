#!/usr/bin/python3
"""probe: a GTK3 test app that logs every input event it receives.

Run it with Debian's /usr/bin/python3 (python3-gi, gir1.2-gtk-3.0); the pyenv
python3 on PATH has no GObject bindings.

Every line on stdout is one JSON object, flushed at once. Coordinates "x"/"y" are
screen (root window) coordinates. Button, scroll and key events are logged by a
GDK event hook for the whole window, whichever widget gets them; "widget" names
the widget under the pointer (buttons, scroll) or the focused one (keys), or
"window".

  {"event":"ready","x":..,"y":..,"width":..,"height":..,"title":..,"pid":..,
   "widgets":{"Pad":{x,y,width,height},"Submit":{..},"Name":{..},"Notes":{..},"Volume":{..}},
   "volume":{"trough":{x,y,width,height},"sliderLength":n,"min":0,"max":100}}
      once the window is mapped and placed; x/y/width/height is the client area.
  {"event":"button","button":n,"clicks":1|2|3,"x","y","widget","modifiers"}
      a press; a double click is ONE event with clicks 2 (GDK_2BUTTON_PRESS), logged
      after the two ordinary presses it consists of (clicks 1 each).
  {"event":"release","button":n,"x","y","widget"}
  {"event":"drag","phase":"start"|"end","button":n,"x","y","motions":n}
      a press on the Pad followed by motion with the button held: "start" is logged
      at the press point when the first motion arrives, "end" at release.
  {"event":"scroll","direction":"up|down|left|right","x","y","widget"}  one per notch
  {"event":"key","key":name,"keyval":n,"char":"x","modifiers":["ctrl","shift","alt","super"],"widget"}
  {"event":"keyrelease","key":name}
  {"event":"clicked","widget":"Submit"}
  {"event":"text","widget":"Name"|"Notes","text":...,"mono":t}   on every change, t the
      CLOCK_MONOTONIC time of the change in seconds (the same clock in every process)
  {"event":"slider","widget":"Volume","value":..}
  {"event":"focus","widget":..}

Options:
  --title T          window title (default "w365 probe")
  --position X,Y     window position on screen (default 100,100); openbox puts the
                     frame there, so read the client area from "ready"
  --size W,H         window size (default 600,500)
  --undecorated      no window-manager frame: the client area is exactly at --position
  --slow-keys MS     take MS milliseconds over each key press, as a busy application does
  --pattern          instead of widgets, draw a fixed test pattern in an
                     override-redirect window at exactly --position (no WM frame);
                     "ready" then carries "pattern":[{x,y,width,height,rgb:[r,g,b]},...]
                     in screen coordinates, painted in order (later ones on top),
                     over a background of "background":[r,g,b].
"""

import argparse
import json
import os
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def emit(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def modifiers(state):
    out = []
    if state & Gdk.ModifierType.CONTROL_MASK:
        out.append("ctrl")
    if state & Gdk.ModifierType.SHIFT_MASK:
        out.append("shift")
    if state & Gdk.ModifierType.MOD1_MASK:
        out.append("alt")
    if state & (Gdk.ModifierType.SUPER_MASK | Gdk.ModifierType.MOD4_MASK):
        out.append("super")
    return out


def widget_rect(w):
    """Screen rectangle of a realized widget."""
    win = w.get_toplevel().get_window()
    if win is None:
        return None
    ox, oy = win.get_origin()[1:]
    alloc = w.get_allocation()
    tx, ty = w.translate_coordinates(w.get_toplevel(), 0, 0)
    return {"x": ox + tx, "y": oy + ty, "width": alloc.width, "height": alloc.height}


# The pattern, in window coordinates: background, then rectangles painted in order.
PATTERN_BG = (255, 255, 255)
PATTERN = [
    (0, 0, 400, 300, (255, 255, 255)),
    (10, 10, 100, 50, (255, 0, 0)),
    (120, 10, 100, 50, (0, 255, 0)),
    (230, 10, 100, 50, (0, 0, 255)),
    (10, 70, 50, 50, (0, 0, 0)),
    (70, 70, 37, 23, (18, 52, 86)),
    (71, 71, 1, 1, (254, 1, 127)),
    (120, 70, 200, 1, (200, 100, 50)),
    (120, 72, 1, 100, (50, 100, 200)),
    (0, 299, 400, 1, (1, 2, 3)),
    (399, 0, 1, 300, (250, 251, 252)),
]
# A 16x16 checkerboard of 4x4 cells, for off-by-one detection.
for cy in range(4):
    for cx in range(4):
        if (cx + cy) % 2 == 0:
            PATTERN.append((200 + cx * 4, 200 + cy * 4, 4, 4, (255, 255, 0)))
        else:
            PATTERN.append((200 + cx * 4, 200 + cy * 4, 4, 4, (0, 255, 255)))


class Probe:
    def __init__(self, args):
        self.args = args
        self.press = None  # (button, x, y) of the press on the Pad
        self.dragging = False
        self.motions = 0
        self.ready_sent = False

    # ---- pattern mode -------------------------------------------------
    def build_pattern(self):
        # Plain CSS backgrounds in a Gtk.Fixed (no cairo binding needed, which
        # python3-gi alone lacks): Fixed paints its children in order.
        w = Gtk.Window(type=Gtk.WindowType.POPUP, title=self.args.title)
        w.set_name("pattern")
        w.move(self.args.x, self.args.y)
        w.set_default_size(400, 300)
        w.set_size_request(400, 300)
        css = ["#pattern { background-color: rgb(%d,%d,%d); background-image: none; }" % PATTERN_BG]
        fixed = Gtk.Fixed()
        for i, (x, y, pw, ph, (r, g, b)) in enumerate(PATTERN):
            box = Gtk.Box()
            box.set_name("r%d" % i)
            box.set_size_request(pw, ph)
            css.append("#r%d { background-color: rgb(%d,%d,%d); background-image: none; "
                       "border: none; box-shadow: none; min-width: 0; min-height: 0; }" % (i, r, g, b))
            fixed.put(box, x, y)
        prov = Gtk.CssProvider()
        prov.load_from_data("\n".join(css).encode())
        Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), prov,
                                                 Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION + 1)
        w.add(fixed)
        w.connect("destroy", Gtk.main_quit)
        self.drawn = False
        self.window = w
        w.connect("realize", lambda w: w.get_frame_clock().connect("after-paint", self.pattern_drawn))
        w.show_all()

    def pattern_drawn(self, clock):
        # (No "draw" handler: its cairo argument needs python3-gi-cairo.)
        if not self.drawn:
            # Report after this paint has reached the X server: the idle runs after
            # the frame is finished, and sync() waits for the server.
            self.drawn = True
            GLib.idle_add(self.pattern_ready, self.window)
        return False

    def pattern_ready(self, w):
        w.get_display().sync()
        ox, oy = w.get_window().get_origin()[1:]
        emit({
            "event": "ready", "x": ox, "y": oy, "width": 400, "height": 300,
            "title": self.args.title, "pid": os.getpid(),
            "background": list(PATTERN_BG),
            "pattern": [{"x": ox + x, "y": oy + y, "width": pw, "height": ph, "rgb": list(c)}
                        for x, y, pw, ph, c in PATTERN],
        })
        return False

    # ---- widget mode --------------------------------------------------
    def build(self):
        w = Gtk.Window(title=self.args.title)
        w.set_default_size(self.args.width, self.args.height)
        w.move(self.args.x, self.args.y)
        if self.args.undecorated:
            w.set_decorated(False)
        w.connect("destroy", Gtk.main_quit)
        w.connect("map-event", self.on_map)
        w.connect("realize", lambda w: w.get_frame_clock().connect("after-paint", self.on_painted))
        self.mapped = False
        self.drawn = False
        w.connect("configure-event", self.on_configure)
        self.window = w

        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
        box.set_border_width(6)
        w.add(box)

        pad = Gtk.EventBox()
        pad.set_name("Pad")
        pad.set_size_request(-1, 200)
        pad.add_events(Gdk.EventMask.BUTTON_PRESS_MASK | Gdk.EventMask.BUTTON_RELEASE_MASK
                       | Gdk.EventMask.POINTER_MOTION_MASK | Gdk.EventMask.SCROLL_MASK)
        pad.connect("button-press-event", self.pad_press)
        pad.connect("button-release-event", self.pad_release)
        pad.connect("motion-notify-event", self.on_motion)
        pad.add(Gtk.Label(label="Pad: click, scroll or drag here"))
        box.pack_start(pad, True, True, 0)
        self.pad = pad

        submit = Gtk.Button(label="Submit")
        submit.set_name("Submit")
        submit.connect("clicked", lambda *_: emit({"event": "clicked", "widget": "Submit"}))
        box.pack_start(submit, False, False, 0)
        self.submit = submit

        entry = Gtk.Entry()
        entry.set_name("Name")
        entry.set_placeholder_text("Name")
        entry.get_accessible().set_name("Name")
        entry.connect("changed", lambda e: emit({"event": "text", "widget": "Name", "text": e.get_text(),
                                                 "mono": time.clock_gettime(time.CLOCK_MONOTONIC)}))
        entry.connect("focus-in-event", lambda *_: emit({"event": "focus", "widget": "Name"}) and False)
        box.pack_start(entry, False, False, 0)
        self.entry = entry

        notes = Gtk.TextView()
        notes.set_name("Notes")
        notes.set_accepts_tab(True)
        notes.set_size_request(-1, 60)
        notes.get_accessible().set_name("Notes")
        buf = notes.get_buffer()
        buf.connect("changed", lambda b: emit({
            "event": "text", "widget": "Notes",
            "text": b.get_text(b.get_start_iter(), b.get_end_iter(), True),
            "mono": time.clock_gettime(time.CLOCK_MONOTONIC)}))
        notes.connect("focus-in-event", lambda *_: emit({"event": "focus", "widget": "Notes"}) and False)
        box.pack_start(notes, False, False, 0)
        self.notes = notes

        adj = Gtk.Adjustment(value=0, lower=0, upper=100, step_increment=1, page_increment=10)
        scale = Gtk.Scale(orientation=Gtk.Orientation.HORIZONTAL, adjustment=adj)
        scale.set_name("Volume")
        scale.set_digits(0)
        scale.set_draw_value(False)
        scale.get_accessible().set_name("Volume")
        scale.connect("value-changed", lambda s: emit({"event": "slider", "widget": "Volume", "value": s.get_value()}))
        box.pack_start(scale, False, False, 0)
        self.scale = scale

        w.show_all()

    def on_configure(self, w, ev):
        return False

    def on_map(self, w, ev):
        self.mapped = True
        self.maybe_ready()
        return False

    def on_painted(self, clock):
        if not self.drawn:
            self.drawn = True
            GLib.idle_add(self.maybe_ready)
        return False

    def maybe_ready(self):
        # Mapped and painted; openbox may still move the window just after mapping,
        # so report once settled.
        if self.mapped and self.drawn and not getattr(self, "ready_timer", False):
            self.ready_timer = True
            GLib.timeout_add(100, self.report_ready)
        return False

    def report_ready(self):
        if self.ready_sent:
            return False
        self.window.get_display().sync()
        win = self.window.get_window()
        ox, oy = win.get_origin()[1:]
        alloc = self.window.get_allocation()
        widgets = {}
        for name, wd in (("Pad", self.pad), ("Submit", self.submit), ("Name", self.entry),
                         ("Notes", self.notes), ("Volume", self.scale)):
            widgets[name] = widget_rect(wd)
        rr = self.scale.get_range_rect()
        srect = widget_rect(self.scale)
        sl_start, sl_end = self.scale.get_slider_range()
        self.ready_sent = True
        emit({
            "event": "ready", "x": ox, "y": oy, "width": alloc.width, "height": alloc.height,
            "title": self.args.title, "pid": os.getpid(), "widgets": widgets,
            "volume": {
                "trough": {"x": srect["x"] + rr.x, "y": srect["y"] + rr.y,
                           "width": rr.width, "height": rr.height},
                "sliderLength": sl_end - sl_start,
                "min": 0, "max": 100,
            },
        })
        return False

    # Button, scroll and key events are logged for the whole window by a GDK event
    # hook (see main), before GTK dispatches them, so that presses on widgets
    # that stop propagation (entry, text view, slider) are logged too.
    def on_gdk_event(self, ev):
        t = ev.type
        if t in (Gdk.EventType.BUTTON_PRESS, Gdk.EventType._2BUTTON_PRESS, Gdk.EventType._3BUTTON_PRESS):
            clicks = {Gdk.EventType.BUTTON_PRESS: 1, Gdk.EventType._2BUTTON_PRESS: 2,
                      Gdk.EventType._3BUTTON_PRESS: 3}[t]
            emit({"event": "button", "button": ev.button.button, "clicks": clicks,
                  "x": int(ev.button.x_root), "y": int(ev.button.y_root),
                  "widget": self.event_widget(ev), "modifiers": modifiers(ev.button.state)})
        elif t == Gdk.EventType.BUTTON_RELEASE:
            emit({"event": "release", "button": ev.button.button, "x": int(ev.button.x_root),
                  "y": int(ev.button.y_root), "widget": self.event_widget(ev)})
        elif t == Gdk.EventType.SCROLL:
            self.log_scroll(ev)
        elif t == Gdk.EventType.KEY_PRESS:
            kv = ev.key.keyval
            cp = Gdk.keyval_to_unicode(kv)
            emit({"event": "key", "key": Gdk.keyval_name(kv), "keyval": kv,
                  "char": chr(cp) if cp else "", "modifiers": modifiers(ev.key.state),
                  "widget": self.focus_name()})
        elif t == Gdk.EventType.KEY_RELEASE:
            emit({"event": "keyrelease", "key": Gdk.keyval_name(ev.key.keyval)})

    NAMES = ("Pad", "Submit", "Name", "Notes", "Volume")

    def event_widget(self, ev):
        w = Gtk.get_event_widget(ev)
        while w is not None:
            if w.get_name() in self.NAMES:
                return w.get_name()
            w = w.get_parent()
        return "window"

    def pad_press(self, widget, ev):
        if ev.type == Gdk.EventType.BUTTON_PRESS:
            self.press = (ev.button, int(ev.x_root), int(ev.y_root))
            self.dragging = False
            self.motions = 0
        return False

    def pad_release(self, widget, ev):
        if self.dragging and self.press and self.press[0] == ev.button:
            emit({"event": "drag", "phase": "end", "button": ev.button,
                  "x": int(ev.x_root), "y": int(ev.y_root), "motions": self.motions})
        self.press = None
        self.dragging = False
        return False

    def on_motion(self, widget, ev):
        if self.press is None:
            return False
        self.motions += 1
        if not self.dragging:
            self.dragging = True
            b, x, y = self.press
            emit({"event": "drag", "phase": "start", "button": b, "x": x, "y": y, "motions": 0})
        return False

    def log_scroll(self, ev):
        d = {Gdk.ScrollDirection.UP: "up", Gdk.ScrollDirection.DOWN: "down",
             Gdk.ScrollDirection.LEFT: "left", Gdk.ScrollDirection.RIGHT: "right"}.get(ev.scroll.direction)
        if d is None:  # smooth scrolling: report the dominant direction
            dx, dy = ev.scroll.delta_x, ev.scroll.delta_y
            if dx == 0 and dy == 0:
                return
            if abs(dy) >= abs(dx):
                d = "down" if dy > 0 else "up"
            else:
                d = "right" if dx > 0 else "left"
        emit({"event": "scroll", "direction": d, "x": int(ev.scroll.x_root), "y": int(ev.scroll.y_root),
              "widget": self.event_widget(ev)})

    def focus_name(self):
        f = self.window.get_focus()
        return f.get_name() if f is not None else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", default="w365 probe")
    ap.add_argument("--position", default="100,100")
    ap.add_argument("--size", default="600,500")
    ap.add_argument("--pattern", action="store_true")
    ap.add_argument("--undecorated", action="store_true")
    ap.add_argument("--slow-keys", type=int, default=0)
    args = ap.parse_args()
    args.x, args.y = (int(v) for v in args.position.split(","))
    args.width, args.height = (int(v) for v in args.size.split(","))
    p = Probe(args)

    def hook(ev, *_):
        if args.slow_keys and ev.type == Gdk.EventType.KEY_PRESS:
            time.sleep(args.slow_keys / 1000)
        p.on_gdk_event(ev)
        Gtk.main_do_event(ev)

    Gdk.Event.handler_set(hook)
    if args.pattern:
        p.build_pattern()
    else:
        p.build()
    Gtk.main()


if __name__ == "__main__":
    main()
