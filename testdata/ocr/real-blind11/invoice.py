# Invoice totals for the OCR benchmark's real-blind11 set, shown in Geany.
VAT_RATE = 0.25


def total(lines):
    """Sum of quantity times unit price, VAT added."""
    net = sum(q * price for q, price in lines)
    return round(net * (1 + VAT_RATE), 2)


print(total([(3, 19.90), (1, 249.00)]))
