import Foundation

/// Text made one word of a POSIX shell: what a user pastes from reader's output runs as it reads,
/// never as a command the text smuggles in (`$(…)`, `;`, a backquote).
enum ShellWord {
    /// `text` as it is when it holds only characters no shell treats specially, else in single
    /// quotes (each `'` in it written `'\''`).
    static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "_-.,/:=+@%".unicodeScalars.contains(scalar))
        }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
