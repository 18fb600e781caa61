# Tide table for the harbour gauge
import csv

HIGH = 4.2  # metres above chart datum


def rising(rows):
    """Yield the hours where the level goes up."""
    last = None
    for hour, level in rows:
        if last is not None and level > last:
            yield hour
        last = level


with open("gauge-07.csv") as f:
    print(list(rising(csv.reader(f))))
