import Foundation
import ReaderKit
import ReaderTerminal

/// The keys the browser owns: back, quit, help, refresh, `s` and `/` with their prompts; the
/// rest go to the screen on top.
extension Browser {
    mutating func press(_ key: Key) -> [Effect<Message>] {
        if key == .control("c") { return [.quit(.interrupted)] }
        // As a shell's job: stopped, the terminal given back; `fg` brings the screen back whole.
        if key == .control("z") { return [.suspend] }
        note = nil
        if showingHelp {
            showingHelp = false
            return []
        }
        if let prompt { return type(key, at: prompt) }
        switch key {
        case .character("q"):
            return stack.count > 1 ? pop() : [.quit(.finished)]
        case .escape where !stack[stack.count - 1].filter.isEmpty:
            return setFilter("")
        case .escape, .character("h"), .left:
            return stack.count > 1 ? pop() : []
        case .character("?"):
            showingHelp = true
            return []
        case .character("r"):
            // One refresh at a time: a held key would send a request a repeat. Offline, `r` is a
            // probe now, which tries at once and keeps waiting for the network.
            let top = stack[stack.count - 1]
            if !top.loading.isEmpty, probing != top.number {
                say("loading already")
                return []
            }
            // Offline with a probe already waiting for the network: another would only cancel it.
            if probing == top.number {
                say("offline; trying again every few seconds")
                return []
            }
            return refreshTop(probe: isOffline(top) && !offlineByChoice)
        case .character("s"):
            prompt = .target("")
            return []
        case .character("/"):
            // Said, so that the keys typed after it are not taken for a filter unawares.
            guard stack[stack.count - 1].screen.filters else {
                say(Self.noFilterHere)
                return []
            }
            prompt = .filter(stack[stack.count - 1].filter)
            return []
        default:
            return toTop(.key(key))
        }
    }

    /// A key while a prompt is open: text typed, `Enter` goes, `Esc` cancels.
    private mutating func type(_ key: Key, at prompt: Prompt) -> [Effect<Message>] {
        var text: String
        switch prompt {
        case .target(let typed), .filter(let typed): text = typed
        }
        switch key {
        case .escape:
            self.prompt = nil
            if case .filter = prompt { return setFilter("") }
            return []
        case .enter:
            self.prompt = nil
            guard case .target = prompt else { return [] }
            let target = text.trimmingCharacters(in: .whitespaces)
            guard !target.isEmpty else { return [] }
            do throws(ReaderError) {
                let screen = try environment.resolve(target)
                return push(screen)
            } catch {
                show("\(CLIWording.message(of: error)) · \(error.code)")
                return []
            }
        case .backspace:
            guard !text.isEmpty else { return [] }
            text.removeLast()
        case .character(let character) where text.count < Self.longestPromptText:
            text.append(character)
        default:
            return []
        }
        switch prompt {
        case .target:
            self.prompt = .target(text)
            return []
        case .filter:
            self.prompt = .filter(text)
            return setFilter(text)
        }
    }
}
