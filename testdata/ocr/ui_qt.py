#!/usr/bin/python3
"""Qt5 application screens with known text for the OCR benchmark.

Usage: ui_qt.py SCENE. Like ui_gtk.py: draws a decorated window, then prints
"TRUTH <words>" (the title included: the window manager draws it) and "READY".
Scenes: "app" (Fusion style, light), "dark" (Fusion with a dark palette, held out).
Run with /usr/bin/python3 (python3-pyqt5).
"""
import sys

from PyQt5.QtCore import QTimer
from PyQt5.QtGui import QColor, QPalette
from PyQt5.QtWidgets import (QApplication, QCheckBox, QComboBox, QFormLayout, QGroupBox,
                             QHBoxLayout, QLabel, QLineEdit, QMainWindow, QPushButton,
                             QRadioButton, QTabWidget, QVBoxLayout, QWidget)

scene = sys.argv[1] if len(sys.argv) > 1 else "app"
truth = []


def t(s):
    truth.extend(s.replace("&", "").split())
    return s


app = QApplication(sys.argv[:1])
app.setStyle("Fusion")
if scene == "dark":
    p = QPalette()
    for role, c in [(QPalette.Window, "#2b2b2b"), (QPalette.WindowText, "#e0e0e0"),
                    (QPalette.Base, "#1e1e1e"), (QPalette.Text, "#e0e0e0"),
                    (QPalette.Button, "#3c3f41"), (QPalette.ButtonText, "#e0e0e0"),
                    (QPalette.Highlight, "#2f65ca"), (QPalette.HighlightedText, "#ffffff")]:
        p.setColor(role, QColor(c))
    app.setPalette(p)

win = QMainWindow()
win.setWindowTitle(t("Mail Server Configuration" if scene == "app" else "Render Queue Monitor"))
mb = win.menuBar()
for m in (["File", "Edit", "View", "Settings", "Help"] if scene == "app" else
          ["Session", "Jobs", "Window", "Help"]):
    mb.addMenu(t(m))
tabs = QTabWidget()
names = (["Accounts", "Filters", "Security", "Logs"] if scene == "app" else
         ["Running", "Finished", "Failed"])
for i, name in enumerate(names):
    page = QWidget()
    if i == 0:
        v = QVBoxLayout(page)
        g = QGroupBox(t("Incoming mail" if scene == "app" else "Current job"))
        f = QFormLayout(g)
        if scene == "app":
            f.addRow(QLabel(t("Host name:")), QLineEdit(t("imap.example.org")))
            f.addRow(QLabel(t("Port:")), QLineEdit(t("993")))
            c = QComboBox()
            c.addItem(t("SSL/TLS"))
            f.addRow(QLabel(t("Encryption:")), c)
            hint = QLabel(t("Ask your provider if you are unsure which port to use."))
        else:
            f.addRow(QLabel(t("Scene:")), QLineEdit(t("courtyard_final")))
            f.addRow(QLabel(t("Frames:")), QLabel(t("120 of 480")))
            f.addRow(QLabel(t("Node:")), QLabel(t("render-07")))
            hint = QLabel(t("Estimated time left: 42 minutes"))
        hint.setStyleSheet("color: #888888; font-size: 8pt;")
        f.addRow(hint)
        v.addWidget(g)
        if scene == "app":
            v.addWidget(QCheckBox(t("Check for new mail every 5 minutes")))
            v.addWidget(QRadioButton(t("Keep messages on server")))
        else:
            v.addWidget(QCheckBox(t("Pause queue when idle")))
        v.addStretch(1)
        h = QHBoxLayout()
        h.addStretch(1)
        for b in (["Test Connection", "Cancel", "Apply"] if scene == "app" else ["Retry", "Stop"]):
            pb = QPushButton(t(b))
            if b in ("Apply", "Stop"):
                pb.setStyleSheet("background: #1e6fd9; color: white; padding: 4px 14px;")
            h.addWidget(pb)
        v.addLayout(h)
    tabs.addTab(page, t(name))
win.setCentralWidget(tabs)
win.statusBar().showMessage(t("Connected to imap.example.org" if scene == "app" else "4 nodes idle"))
win.resize(760, 520)
win.move(420, 200)
win.show()


def report():
    # On a busy machine the window may not be mapped yet: wait until it is exposed, then
    # give it time to paint.
    h = win.windowHandle()
    if h is None or not h.isExposed():
        QTimer.singleShot(200, report)
        return
    QTimer.singleShot(800, lambda: (print("TRUTH " + " ".join(truth), flush=True),
                                    print("READY", flush=True)))


QTimer.singleShot(1000, report)
app.exec_()
