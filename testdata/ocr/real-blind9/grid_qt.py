#!/usr/bin/python3
"""A Qt 5 table for the OCR benchmark's real-blind9 set, in the Fusion style on a dark
palette: a label over a table with grid lines in an 8 pt serif (C059), whose status cells
are coloured text on coloured backgrounds, and a button row. Prints "TRUTH <words>" (the
title included) and "READY" once drawn. Run with /usr/bin/python3 (python3-pyqt5)."""
import sys

from PyQt5.QtCore import Qt, QTimer
from PyQt5.QtGui import QBrush, QColor, QFont, QPalette
from PyQt5.QtWidgets import (QApplication, QHBoxLayout, QLabel, QPushButton, QTableWidget,
                             QTableWidgetItem, QVBoxLayout, QWidget)

app = QApplication(sys.argv)
app.setStyle("Fusion")
p = QPalette()
for role, colour in [(QPalette.Window, "#2b2b2b"), (QPalette.WindowText, "#dddddd"), (QPalette.Base, "#1e1e1e"),
                     (QPalette.AlternateBase, "#262626"), (QPalette.Text, "#d0d0d0"), (QPalette.Button, "#3a3a3a"),
                     (QPalette.ButtonText, "#e0e0e0"), (QPalette.Highlight, "#3d6fb4"), (QPalette.HighlightedText, "#ffffff")]:
    p.setColor(role, QColor(colour))
app.setPalette(p)
truth = []


def said(text):
    truth.extend(text.split())
    return text


w = QWidget()
w.setWindowTitle(said("Job queue"))
v = QVBoxLayout(w)
v.addWidget(QLabel(said("Print jobs on floor 3")))
rows = [("report-q4.pdf", "12", "Printing", "#1b5e20", "#c8e6c9"),
        ("poster.png", "1", "Waiting", "#f57f17", "#212121"),
        ("minutes.odt", "4", "Failed", "#b71c1c", "#ffebee"),
        ("labels.svg", "30", "Paused", "#4a148c", "#e1bee7")]
t = QTableWidget(len(rows), 3)
t.setFont(QFont("C059", 8))
t.setShowGrid(True)
t.setHorizontalHeaderLabels([said("Document"), said("Pages"), said("Status")])
t.verticalHeader().setVisible(False)
for i, (doc, pages, status, bg, fg) in enumerate(rows):
    t.setItem(i, 0, QTableWidgetItem(said(doc)))
    t.setItem(i, 1, QTableWidgetItem(said(pages)))
    s = QTableWidgetItem(said(status))
    s.setBackground(QBrush(QColor(bg)))
    s.setForeground(QBrush(QColor(fg)))
    t.setItem(i, 2, s)
t.resizeColumnsToContents()
t.horizontalHeader().setStretchLastSection(True)
v.addWidget(t)
h = QHBoxLayout()
h.addStretch(1)
for text in ["Retry", "Remove"]:
    h.addWidget(QPushButton(said(text)))
v.addLayout(h)
w.resize(400, 250)
w.move(340, 210)
w.show()
QTimer.singleShot(800, lambda: print("TRUTH " + " ".join(truth), "READY", sep="\n", flush=True))
app.exec_()
