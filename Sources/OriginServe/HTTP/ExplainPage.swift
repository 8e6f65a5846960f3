import ContentBlockerEngine

/// The HTML answer of `GET /explain`: the human rendering of `ExplanationText`, escaped, in a page
/// with an inline style only (the endpoint's CSP allows nothing else), escaped as the status page is.
package enum ExplainPage {
    package static func render(_ answer: ExplainAnswer) -> String {
        let headline = StatusFormat.html(ExplanationText.headline(answer.explanation.verdict))
        let body = StatusFormat.html(ExplanationText.human(answer))
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>explain: \(headline)</title>
            <style>body{font:15px/1.45 system-ui,sans-serif;margin:1rem auto;max-width:72rem;padding:0 1rem}
            pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.75rem;border-radius:4px}</style>
            </head><body>
            <h1>\(headline)</h1>
            <pre>\(body)</pre>
            </body></html>

            """
    }
}
