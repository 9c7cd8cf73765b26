/// One key the user pressed, as the terminal sent it.
public enum Key: Hashable, Sendable {
    /// A printable character (a letter, a digit, a space, an emoji), already decoded from UTF-8.
    case character(Character)
    /// A letter with Ctrl (`Ctrl-c` is `.control("c")`): the bytes 0x01…0x1A other than Tab and Enter,
    /// and Ctrl-Space (`.control(" ")`, the byte 0).
    case control(Character)
    /// A printable character after a lone Esc in the same moment: Alt with the character, as
    /// terminals send it.
    case alt(Character)
    case enter, escape, backspace, tab, backTab
    case up, down, left, right, home, end, pageUp, pageDown, insert, delete
    /// A function key, F1 to F12.
    case function(Int)
    /// Bytes that make no key this decoder knows: an escape sequence it does not read, or a byte
    /// that is not UTF-8. Kept so that a screen can ignore them, and a test can see them.
    case unknown([UInt8])
}
