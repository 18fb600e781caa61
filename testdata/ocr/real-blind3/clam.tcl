# A Tk window (wish) in ttk's "clam" theme for the OCR benchmark's real-blind3 set: its
# texts are the arguments, so that the test knows every word it shows: a title, a label,
# an entry's text, a combo box's value, two radio buttons, a check button and two buttons.
package require Tk
lassign $argv title text entry combo radio1 radio2 check ok cancel
ttk::style theme use clam
wm title . $title
wm geometry . +380+240
ttk::frame .f -padding 12
ttk::label .f.l -text $text
ttk::entry .f.e -width 30
.f.e insert 0 $entry
ttk::combobox .f.c -values [list $combo] -width 20
.f.c set $combo
set choice 1
ttk::radiobutton .f.r1 -text $radio1 -variable choice -value 1
ttk::radiobutton .f.r2 -text $radio2 -variable choice -value 2
ttk::checkbutton .f.k -text $check
ttk::frame .f.b
ttk::button .f.b.ok -text $ok
ttk::button .f.b.cancel -text $cancel
pack .f.b.ok .f.b.cancel -side left -padx 4
pack .f -fill both
pack .f.l .f.e .f.c .f.r1 .f.r2 .f.k .f.b -anchor w -pady 4
