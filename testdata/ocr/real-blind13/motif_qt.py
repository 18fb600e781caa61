#!/usr/bin/python3
"""A Qt 5 window for the OCR benchmark's real-blind13 set, in the Motif style of
qt5-style-plugins: a calendar of March 2026 (a grid of figures under day names), a time
field, a combo box, a line of text and a button row. Prints READY once drawn; its words
are transcribed by hand into qt-motif-calendar.words."""
import sys
from PyQt5 import QtCore, QtWidgets

app = QtWidgets.QApplication(sys.argv)
app.setStyle(QtWidgets.QStyleFactory.create("Motif"))
w = QtWidgets.QWidget()
w.setWindowTitle("Book the van")
grid = QtWidgets.QGridLayout(w)
cal = QtWidgets.QCalendarWidget()
cal.setMinimumDate(QtCore.QDate(2026, 3, 1))
cal.setMaximumDate(QtCore.QDate(2026, 3, 31))
cal.setSelectedDate(QtCore.QDate(2026, 3, 17))
cal.setFirstDayOfWeek(QtCore.Qt.Monday)
cal.setVerticalHeaderFormat(QtWidgets.QCalendarWidget.NoVerticalHeader)
cal.setNavigationBarVisible(False)
grid.addWidget(cal, 0, 0, 1, 2)
grid.addWidget(QtWidgets.QLabel("Pick-up at"), 1, 0)
t = QtWidgets.QTimeEdit(QtCore.QTime(9, 30))
t.setDisplayFormat("HH:mm")
grid.addWidget(t, 1, 1)
grid.addWidget(QtWidgets.QLabel("Van"), 2, 0)
c = QtWidgets.QComboBox()
c.addItems(["KX-219 (long)", "KX-204"])
grid.addWidget(c, 2, 1)
grid.addWidget(QtWidgets.QLabel("Purpose"), 3, 0)
grid.addWidget(QtWidgets.QLineEdit("Move shelves to Quay Lane"), 3, 1)
row = QtWidgets.QHBoxLayout()
row.addStretch()
row.addWidget(QtWidgets.QPushButton("Book"))
row.addWidget(QtWidgets.QPushButton("Close"))
grid.addLayout(row, 4, 0, 1, 2)
w.setGeometry(320, 180, 440, 420)
w.show()
QtCore.QTimer.singleShot(1500, lambda: print("READY", flush=True))
app.exec_()
