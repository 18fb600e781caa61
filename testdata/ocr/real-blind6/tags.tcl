# A Tk window (wish) for the OCR benchmark's real-blind6 set: text on coloured ground.
# Its texts are the arguments, so that the test knows every word it shows: a title, a
# banner drawn over a blue-to-teal gradient, four status tags (white on red, black on
# amber, white on green, white on slate) and a status line in an 8 px font.
package require Tk
lassign $argv title banner red amber green slate status
wm title . $title
wm geometry . +360+260
canvas .g -width 460 -height 56 -highlightthickness 0
for {set x 0} {$x < 460} {incr x} {
    set f [expr {$x / 459.0}]
    .g create line $x 0 $x 56 -fill [format #%02x%02x%02x [expr {int(30 + 10*$f)}] \
        [expr {int(70 + 90*$f)}] [expr {int(150 - 20*$f)}]]
}
.g create text 16 28 -anchor w -text $banner -fill white -font {{DejaVu Sans} 13}
frame .t
set i 0
foreach {text bg fg} [list $red #c62828 white $amber #ffb300 black $green #2e7d32 white \
        $slate #455a64 white] {
    label .t.l$i -text $text -background $bg -foreground $fg -padx 8 -pady 3 \
        -font {{DejaVu Sans} 10 bold}
    pack .t.l$i -side left -padx 4
    incr i
}
label .s -text $status -font {{DejaVu Sans} -8} -anchor w
pack .g -fill x
pack .t -padx 8 -pady 10 -anchor w
pack .s -fill x -padx 8 -pady 4
