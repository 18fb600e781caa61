// A Java AWT window (no Swing) for the OCR benchmark's real-blind12 set: heavyweight AWT
// widgets drawn by the XToolkit, a total in large bold figures, a keypad of one-glyph
// buttons, a Choice, a Checkbox and a line of small grey text.
import java.awt.*;
import java.awt.event.WindowAdapter;
import java.awt.event.WindowEvent;

public class Till {
    public static void main(String[] a) {
        Frame f = new Frame("Corner shop till");
        f.addWindowListener(new WindowAdapter() {
            public void windowClosing(WindowEvent e) { System.exit(0); }
        });
        f.setLayout(new BorderLayout(6, 6));
        Panel top = new Panel(new GridLayout(2, 1));
        Label total = new Label("1,085.40", Label.RIGHT);
        total.setFont(new Font("Dialog", Font.BOLD, 30));
        top.add(total);
        Label note = new Label("Cashier Omar, drawer 2, shift opened 07:55");
        note.setFont(new Font("Dialog", Font.PLAIN, 10));
        note.setForeground(new Color(0x80, 0x80, 0x80));
        top.add(note);
        f.add(top, BorderLayout.NORTH);
        Panel keys = new Panel(new GridLayout(4, 4, 4, 4));
        for (String k : new String[]{"7", "8", "9", "/", "4", "5", "6", "*", "1", "2", "3", "-", "0", ".", "=", "+"}) {
            Button b = new Button(k);
            b.setFont(new Font("Dialog", Font.BOLD, 14));
            keys.add(b);
        }
        f.add(keys, BorderLayout.CENTER);
        Panel bottom = new Panel(new FlowLayout(FlowLayout.LEFT));
        Choice pay = new Choice();
        pay.add("Card");
        pay.add("Cash");
        bottom.add(pay);
        bottom.add(new Checkbox("Print receipt", true));
        bottom.add(new Button("Void"));
        f.add(bottom, BorderLayout.SOUTH);
        f.setBounds(360, 180, 340, 380);
        f.setVisible(true);
    }
}
