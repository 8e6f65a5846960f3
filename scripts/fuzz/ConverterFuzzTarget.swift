// libFuzzer target for rule conversion: any bytes are treated as a filter list. The converter must
// not crash, must account for every filter line, and every rule it emits must pass WebKitListValidator.

@_cdecl("LLVMFuzzerTestOneInput")
public func converterFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let (rules, reports) = RuleConverter().convert([FilterListSource(id: "fuzz", bytes: bytes)])
    let report = reports[0]
    let skipped = report.skipped.values.reduce(0) { $0 + $1.count }
    if report.converted + skipped != report.rules {
        fatalError("line accounting broken: converted \(report.converted) + skipped \(skipped) != rules \(report.rules)")
    }
    var objects: [[UInt8]] = []
    for rule in rules.network {
        objects.append(rule.json)
        if let carveOut = rule.carveOut { objects.append(carveOut) }
    }
    objects.append(contentsOf: rules.siteExceptions.map(\.json))
    for selector in rules.cosmetic {
        var json = Array(#"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":"#.utf8)
        JSONWriter.appendString(selector.selector, to: &json)
        json.append(contentsOf: "}}".utf8)
        objects.append(json)
        let domains: [String]
        switch selector.domains {
        case .everywhere: domains = []
        case .only(let list), .except(let list): domains = list
        }
        for domain in domains where domain.isEmpty || domain.utf8.contains(where: { $0 >= 0x80 || ($0 >= 0x41 && $0 <= 0x5A) }) {
            fatalError("cosmetic domain not lowercase ASCII: \(domain)")
        }
    }
    if objects.isEmpty { return 0 }
    var list: [UInt8] = [UInt8(ascii: "[")]
    for (index, object) in objects.enumerated() {
        if index > 0 { list.append(UInt8(ascii: ",")) }
        list.append(contentsOf: object)
    }
    list.append(UInt8(ascii: "]"))
    let problems = WebKitListValidator().problems(in: list)
    if !problems.isEmpty {
        fatalError("emitted rules fail validation: \(problems.prefix(3)) for input \(String(decoding: bytes.prefix(300), as: UTF8.self))")
    }
    return 0
}
