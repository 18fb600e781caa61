# A Tk window (wish) for the OCR benchmark's real-blind7 set; its texts are the arguments,
# so that the test knows every word it shows. MODE "keypad": a display line and bevelled
# one-glyph buttons (raised, 3 px borders) in a bold URW Gothic, four to a row. MODE
# "dark": a bold Palladio heading and lines of grey Nimbus Sans Narrow 9 on a dark panel.
package require Tk
lassign $argv mode title
wm title . $title
wm geometry . +380+240
if {$mode eq "keypad"} {
    set keys [lassign [lrange $argv 2 end] display]
    label .d -text $display -anchor e -relief sunken -borderwidth 2 -background white \
        -font {{URW Gothic} 14}
    grid .d -row 0 -column 0 -columnspan 4 -sticky ew -padx 6 -pady 6
    set i 0
    foreach k $keys {
        button .k$i -text $k -width 2 -relief raised -borderwidth 3 -font {{URW Gothic} 13 bold}
        grid .k$i -row [expr {1 + $i / 4}] -column [expr {$i % 4}] -padx 3 -pady 3
        incr i
    }
} else {
    set lines [lassign [lrange $argv 2 end] heading]
    . configure -background #222428
    label .h -text $heading -background #222428 -foreground #e8e8e8 -font {P052 14 bold}
    pack .h -padx 14 -pady {10 4} -anchor w
    set i 0
    foreach l $lines {
        label .l$i -text $l -background #222428 -foreground #8c8f94 -font {{Nimbus Sans Narrow} 9}
        pack .l$i -padx 14 -pady 1 -anchor w
        incr i
    }
    frame .pad -height 10 -background #222428
    pack .pad
}
