// A Java Swing window for the OCR benchmark's real-blind10 set, in Swing's default Metal
// look (bold Dialog labels, blue-grey gradients): a heading, a table with grid lines, a
// status line in small grey text and two buttons. Its texts are the arguments, so that the
// test knows every word it shows: title, heading, status, the two buttons joined by |,
// the columns joined by |, then one argument per row, its cells joined by |.
import java.awt.BorderLayout;
import java.awt.Color;
import java.awt.Font;
import java.awt.FlowLayout;
import javax.swing.*;

public class Permits {
    public static void main(String[] a) {
        SwingUtilities.invokeLater(() -> {
            JFrame f = new JFrame(a[0]);
            f.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            JPanel p = new JPanel(new BorderLayout(8, 8));
            p.setBorder(BorderFactory.createEmptyBorder(10, 12, 8, 12));
            p.add(new JLabel(a[1]), BorderLayout.NORTH);
            String[] cols = a[4].split("\\|");
            String[][] rows = new String[a.length - 5][];
            for (int i = 5; i < a.length; i++) {
                rows[i - 5] = a[i].split("\\|");
            }
            JTable t = new JTable(rows, cols);
            t.setPreferredScrollableViewportSize(new java.awt.Dimension(420, rows.length * t.getRowHeight()));
            p.add(new JScrollPane(t), BorderLayout.CENTER);
            JPanel south = new JPanel(new BorderLayout());
            JLabel status = new JLabel(a[2]);
            status.setForeground(new Color(0x80, 0x80, 0x80));
            status.setFont(status.getFont().deriveFont(Font.PLAIN, 10f));
            south.add(status, BorderLayout.WEST);
            JPanel buttons = new JPanel(new FlowLayout(FlowLayout.RIGHT, 6, 0));
            for (String b : a[3].split("\\|")) {
                buttons.add(new JButton(b));
            }
            south.add(buttons, BorderLayout.EAST);
            p.add(south, BorderLayout.SOUTH);
            f.setContentPane(p);
            f.pack();
            f.setLocation(300, 200);
            f.setVisible(true);
        });
    }
}
