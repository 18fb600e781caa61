# A Tk window (wish) for the OCR benchmark's real-blind set: its texts are the arguments,
# so that the test knows every word it shows. MODE is "form" (default Tk colours: a label,
# an entry, a check button, two buttons) or "dark" (grey on dark: a label and a list).
lassign $argv mode title text
wm title . $title
wm geometry . +420+260
if {$mode eq "form"} {
    lassign [lrange $argv 3 end] entry check ok cancel
    label .l -text $text
    entry .e -width 28
    .e insert 0 $entry
    checkbutton .c -text $check
    frame .b
    button .b.ok -text $ok
    button .b.cancel -text $cancel
    pack .b.ok .b.cancel -side left -padx 6
    pack .l .e .c .b -padx 12 -pady 6 -anchor w
} else {
    set items [lrange $argv 3 end]
    . configure -background #2b2b2b
    label .l -text $text -background #2b2b2b -foreground #b4b4b4
    listbox .lb -height [llength $items] -width 30 -background #1f1f1f -foreground #a8a8a8 \
        -highlightthickness 0 -borderwidth 0
    foreach i $items { .lb insert end $i }
    pack .l .lb -padx 14 -pady 8 -anchor w
}
