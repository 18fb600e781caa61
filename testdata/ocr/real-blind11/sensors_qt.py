#!/usr/bin/python3
"""A Qt 5 main window for the OCR benchmark's real-blind11 set, in the Fusion style on its
own light palette: a menu bar, tabs, a tree of sensors in Hack 8 whose state column shows
coloured badges, a progress bar with its percentage, and a status bar of small grey text
with a permanent field. Prints "READY" once drawn (its words are transcribed by hand from
the screen into qt-fusion-sensors.words).
Run with /usr/bin/python3 (python3-pyqt5)."""
import sys

from PyQt5.QtCore import QTimer
from PyQt5.QtGui import QBrush, QColor, QFont
from PyQt5.QtWidgets import (QApplication, QLabel, QMainWindow, QProgressBar, QTabWidget,
                             QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

app = QApplication(sys.argv)
app.setStyle("Fusion")
w = QMainWindow()
w.setWindowTitle("Greenhouse sensors")
for m in ["File", "View", "Alarms", "Help"]:
    w.menuBar().addMenu(m)
tabs = QTabWidget()
page = QWidget()
tabs.addTab(page, "Live")
tabs.addTab(QWidget(), "History")
tabs.addTab(QWidget(), "Limits")
v = QVBoxLayout(page)
tree = QTreeWidget()
tree.setFont(QFont("Hack", 8))
tree.setHeaderLabels(["Sensor", "Reading", "State"])
badges = {"ok": ("#2e7d32", "#ffffff"), "high": ("#c62828", "#ffffff"), "low": ("#f9a825", "#000000")}
for house, sensors in [("Bay 1", [("temp-01", "24.5 C", "ok"), ("hum-01", "81%", "high")]),
                       ("Bay 2", [("temp-02", "17.9 C", "low"), ("soil-02", "0.42", "ok")])]:
    top = QTreeWidgetItem([house])
    tree.addTopLevelItem(top)
    for name, reading, state in sensors:
        it = QTreeWidgetItem([name, reading, state])
        bg, fg = badges[state]
        it.setBackground(2, QBrush(QColor(bg)))
        it.setForeground(2, QBrush(QColor(fg)))
        top.addChild(it)
tree.expandAll()
tree.setColumnWidth(0, 150)
v.addWidget(tree)
bar = QProgressBar()
bar.setValue(64)
v.addWidget(bar)
w.setCentralWidget(tabs)
status = w.statusBar()
status.setFont(QFont("Nimbus Sans", 7))
status.showMessage("Polled 40 sensors at 14:32")
field = QLabel("Gateway online")
field.setStyleSheet("color: #555555")
status.addPermanentWidget(field)
w.resize(470, 330)
w.move(330, 190)
w.show()
QTimer.singleShot(800, lambda: print("READY", flush=True))
app.exec_()
