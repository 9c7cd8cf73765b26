import Foundation
import OpenLibraryKit
import ReaderCLI
import ReaderKit

extension OpenLibraryPlugin {
    /// `reader browse openlibrary/TEXT`: the works a search for TEXT finds, and `Enter` a work's
    /// detail; `openlibrary/OL45804W` opens that work. The screens load what `reader work`
    /// loads, through the client `reader` gives them.
    public var browse: BrowseCapability? {
        BrowseCapability(
            targets: "openlibrary/TEXT (the works a search finds), openlibrary/WORK (OL45804W)",
            goTo: "openlibrary/TEXT",
            examples: ["openlibrary/tolkien", "openlibrary/OL45804W"],
            prepare: { (target, _) throws(ReaderError) -> BrowseProgram in
                let text = (target ?? "").trimmingCharacters(in: .whitespaces)
                if let work = OpenLibraryID(text, kind: .work) {
                    return BrowseProgram { context in OpenLibraryWorkScreen(id: work, client: context.client) }
                }
                guard !text.isEmpty else {
                    throw .invalidArgument("openlibrary needs what to look for: openlibrary/TEXT, such as openlibrary/tolkien")
                }
                // Checked now, so that a text the search refuses is an error before the terminal is borrowed.
                _ = try OpenLibrary.search(text)
                return BrowseProgram { context in OpenLibrarySearchScreen(text: text, client: context.client) }
            })
    }
}
