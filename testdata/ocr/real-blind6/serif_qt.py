#!/usr/bin/python3
"""A Qt 5 dialog in a serif font (C059, URW's Century Schoolbook, 11 pt) for the OCR
benchmark's real-blind6 set: a heading, a paragraph, a check box, a line edit and a
button row. Prints "TRUTH <words>" (the title included) and "READY" once drawn.
Run with /usr/bin/python3 (python3-pyqt5)."""
import sys

from PyQt5.QtCore import QTimer
from PyQt5.QtGui import QFont
from PyQt5.QtWidgets import (QApplication, QCheckBox, QDialog, QHBoxLayout, QLabel,
                             QLineEdit, QPushButton, QVBoxLayout)

app = QApplication(sys.argv)
app.setFont(QFont("C059", 11))
truth = []


def said(text):
    truth.extend(text.split())
    return text


w = QDialog()
w.setWindowTitle(said("Print proof"))
v = QVBoxLayout(w)
head = QLabel(said("Chapter 9 is ready to print"))
f = QFont("C059", 14)
f.setBold(True)
head.setFont(f)
v.addWidget(head)
body = QLabel(said("The proof has 212 pages and 18 figures; the index was rebuilt at 09:40."))
body.setWordWrap(True)
v.addWidget(body)
v.addWidget(QCheckBox(said("Print crop marks")))
row = QHBoxLayout()
row.addWidget(QLabel(said("Copies:")))
row.addWidget(QLineEdit(said("3")))
v.addLayout(row)
buttons = QHBoxLayout()
buttons.addStretch()
for label in ["Print", "Cancel"]:
    buttons.addWidget(QPushButton(said(label)))
v.addLayout(buttons)
w.resize(440, 240)
w.move(400, 220)
w.show()
QTimer.singleShot(800, lambda: print("TRUTH " + " ".join(truth), "READY", sep="\n", flush=True))
app.exec_()
