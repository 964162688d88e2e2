"""sim/display/tmds.py, the DVI 1.0 §3.2.3 reference: symbols worked out by hand from the
spec's algorithm, every byte decoding back at every reachable disparity, the code set (460
data symbols, disjoint from the 4 control symbols), the disparity bound, and a symbol's
disparity being exactly the change of the running disparity."""

from sim.display.tmds import (CNT_BOUND, CONTROL, data_codes, decode_data, encode,
                              encode_word, reachable_cnt, symbol_disparity, tables)


def test_hand_worked_symbols():
    # 0x00: no ones -> XOR, q_m = 1_00000000; cnt 0 -> sent as is, bit 9 = ~q_m[8]
    assert encode(0x00, 0) == (0b0100000000, -8)
    # 0xFF: eight ones -> XNOR, q_m = 0_11111111; cnt 0 -> inverted, bit 9 = ~q_m[8]
    assert encode(0xFF, 0) == (0b1000000000, -8)
    # 0x00 at cnt -8: q_m has more zeros and the line leans to zeros -> inverted
    assert encode(0x00, -8) == (0b1111111111, 2)
    # 0x55: four ones, bit 0 set -> XOR, q_m = 1_00110011 (balanced) -> as is
    assert encode_word(0x55) == 0b100110011
    assert encode(0x55, 0) == (0b0100110011, 0)
    assert CONTROL == (0b1101010100, 0b0010101011, 0b0101010100, 0b1010101011)


def test_every_byte_decodes():
    for cnt in reachable_cnt():
        for byte in range(256):
            symbol, after = encode(byte, cnt)
            assert decode_data(symbol) == byte
            assert after - cnt == symbol_disparity(symbol)


def test_code_set_and_bound():
    assert reachable_cnt() == (-8, -6, -4, -2, 0, 2, 4, 6, 8)
    assert CNT_BOUND == 8
    assert len(data_codes()) == 460
    assert not set(CONTROL) & data_codes()
    t = tables()
    assert (t["control"] >= 0).sum() == 4 and (t["data"] >= 0).sum() == 460
