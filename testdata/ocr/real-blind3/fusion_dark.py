#!/usr/bin/python3
"""A Qt 5 window in the Fusion style with a dark palette, for the OCR benchmark's
real-blind3 set: tabs, a group of radio buttons, a list, a progress bar's label and a
button row. Prints "TRUTH <words>" (the title included) and "READY" once drawn.
Run with /usr/bin/python3 (python3-pyqt5)."""
import sys

from PyQt5.QtCore import QTimer, Qt
from PyQt5.QtGui import QColor, QPalette
from PyQt5.QtWidgets import (QApplication, QGroupBox, QHBoxLayout, QLabel, QListWidget,
                             QPushButton, QRadioButton, QTabWidget, QVBoxLayout, QWidget)

app = QApplication(sys.argv)
app.setStyle("Fusion")
p = QPalette()
for role, colour in [(QPalette.Window, "#353535"), (QPalette.WindowText, "#e0e0e0"),
                     (QPalette.Base, "#232323"), (QPalette.AlternateBase, "#353535"),
                     (QPalette.Text, "#e0e0e0"), (QPalette.Button, "#353535"),
                     (QPalette.ButtonText, "#e0e0e0"), (QPalette.Highlight, "#2a82da"),
                     (QPalette.HighlightedText, "#000000")]:
    p.setColor(role, QColor(colour))
app.setPalette(p)
truth = []


def said(text):
    truth.extend(text.split())
    return text


w = QWidget()
w.setWindowTitle(said("Sync settings"))
v = QVBoxLayout(w)
tabs = QTabWidget()
page = QWidget()
tabs.addTab(page, said("General"))
tabs.addTab(QWidget(), said("Schedule"))
tabs.addTab(QWidget(), said("Advanced"))
pv = QVBoxLayout(page)
group = QGroupBox(said("When a file changes"))
gv = QVBoxLayout(group)
first = QRadioButton(said("Upload it at once"))
first.setChecked(True)
gv.addWidget(first)
gv.addWidget(QRadioButton(said("Wait until the next hour")))
pv.addWidget(group)
pv.addWidget(QLabel(said("Folders kept in sync:")))
folders = QListWidget()
for f in ["~/Documents/taxes", "~/Pictures/2026", "/srv/shared/team-notes"]:
    folders.addItem(said(f))
pv.addWidget(folders)
pv.addWidget(QLabel(said("Last sync: 14 minutes ago, 312 files")))
v.addWidget(tabs)
row = QHBoxLayout()
row.addStretch()
for label in ["Apply", "Close"]:
    row.addWidget(QPushButton(said(label)))
v.addLayout(row)
w.resize(480, 440)
w.move(420, 180)
w.show()
QTimer.singleShot(800, lambda: print("TRUTH " + " ".join(truth), "READY", sep="\n", flush=True))
app.exec_()
