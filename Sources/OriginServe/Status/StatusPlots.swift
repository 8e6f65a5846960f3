import Foundation
import OriginStore

/// A point in the plot's SVG user space (y grows downwards).
package struct PlotPoint: Equatable, Sendable {
    package var x: Double
    var y: Double
}

/// A line plot as inline SVG: one polyline and its dots per series, a zero-based y axis with three
/// labels, and the first and last x labels. It scales with the page (`viewBox`); the legend is
/// HTML beside it so it stays readable on a phone.
package struct LinePlot {
    package struct Series {
        package var name: String
        /// Data coordinates, in x order.
        var points: [(x: Double, y: Double)]
    }

    package static let left = 100.0, right = 16.0, top = 16.0, bottom = 34.0
    /// Distinguishable on white and for the common colour-vision deficiencies (Okabe–Ito).
    static let palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#7F7F7F", "#F0E442"]

    package var id: String
    var title: String
    var series: [Series]
    var firstLabel: String
    var lastLabel: String
    package var format: (Double) -> String
    /// The SVG user space; the page draws a 640-wide plot for desktops and a 360-wide one for phones,
    /// so labels keep a readable size on both.
    package var width = 640.0
    var height = 240.0

    /// The same plot drawn for a phone-width screen.
    var narrow: LinePlot {
        var copy = self
        copy.id += "-narrow"
        copy.width = 360
        copy.height = 260
        return copy
    }

    var xRange: ClosedRange<Double> {
        let xs = series.flatMap { $0.points.map(\.x) }
        return (xs.min() ?? 0)...(xs.max() ?? 0)
    }

    /// The top of the y axis: the largest value (1 when all are zero).
    var yMax: Double {
        let largest = series.flatMap { $0.points.map(\.y) }.max() ?? 0
        return largest > 0 ? largest : 1
    }

    /// Where a data point lands: x spread over the plot width (centred when all x are equal),
    /// y from 0 at the bottom to `yMax` at the top.
    package func place(x: Double, y: Double) -> PlotPoint {
        let innerWidth = width - Self.left - Self.right
        let innerHeight = height - Self.top - Self.bottom
        let range = xRange
        let fraction =
            range.upperBound > range.lowerBound ? (x - range.lowerBound) / (range.upperBound - range.lowerBound) : 0.5
        return PlotPoint(
            x: Self.round(Self.left + fraction * innerWidth), y: Self.round(Self.top + (1 - y / yMax) * innerHeight))
    }

    /// `variant` is a class for the page's CSS (`wide` or `narrow`).
    func svg(variant: String = "wide") -> String {
        let e = StatusFormat.html
        let baseline = height - Self.bottom
        var out =
            "<svg id=\"\(e(id))\" class=\"plot \(variant)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(e(title))\">"
        out += "<title>\(e(title))</title>"
        for step in 0...2 {
            let value = yMax * Double(step) / 2
            let y = place(x: xRange.lowerBound, y: value).y
            out += "<line class=\"grid\" x1=\"\(Self.left)\" y1=\"\(y)\" x2=\"\(width - Self.right)\" y2=\"\(y)\"/>"
            out +=
                "<text class=\"ylabel\" x=\"\(Self.left - 6)\" y=\"\(y + 6)\" text-anchor=\"end\">\(e(format(value)))</text>"
        }
        out += "<text class=\"xlabel\" x=\"\(Self.left)\" y=\"\(baseline + 26)\">\(e(firstLabel))</text>"
        out +=
            "<text class=\"xlabel\" x=\"\(width - Self.right)\" y=\"\(baseline + 26)\" text-anchor=\"end\">\(e(lastLabel))</text>"
        for (index, line) in series.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let placed = line.points.map { place(x: $0.x, y: $0.y) }
            let coordinates = placed.map { "\($0.x),\($0.y)" }.joined(separator: " ")
            out += "<g class=\"series\" data-series=\"\(e(line.name))\">"
            out += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.5\" points=\"\(coordinates)\"/>"
            for point in placed {
                out += "<circle cx=\"\(point.x)\" cy=\"\(point.y)\" r=\"3.5\" fill=\"\(colour)\"/>"
            }
            out += "</g>"
        }
        return out + "</svg>"
    }

    /// The HTML legend: a swatch and the name of each series.
    func legend() -> String {
        var out = "<ul class=\"legend\">"
        for (index, line) in series.enumerated() {
            out +=
                "<li><span class=\"swatch\" style=\"background:\(Self.palette[index % Self.palette.count])\"></span>\(StatusFormat.html(line.name))</li>"
        }
        return out + "</ul>"
    }

    /// Two decimals are plenty in a 640-unit box and keep the markup short and stable.
    private static func round(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }
}

/// The two plots of the kept history.
package enum StatusPlots {
    /// Rules per list family at each publish, one line per family.
    static func rulesPerFamily(_ history: [RefreshRecord]) -> LinePlot? {
        let published = history.filter { !$0.rulesByFamily.isEmpty }
        guard let first = published.first, let last = published.last else { return nil }
        let families = Set(published.flatMap(\.rulesByFamily.keys)).sorted()
        let series = families.map { family in
            LinePlot.Series(
                name: family,
                points: published.map { ($0.at.timeIntervalSince1970, Double($0.rulesByFamily[family] ?? 0)) })
        }
        return LinePlot(
            id: "plot-rules", title: "Rules per list family", series: series, firstLabel: StatusFormat.day(first.at),
            lastLabel: StatusFormat.day(last.at), format: { StatusFormat.count(Int($0)) })
    }

    /// What one device downloads per UTC day, with patches and whole.
    static func deviceDailyBytes(_ history: [RefreshRecord]) -> LinePlot? {
        var days: [(day: Int, patched: Int, whole: Int)] = []
        for record in history {
            let day = Int((record.at.timeIntervalSince1970 / 86400).rounded(.down))
            if days.last?.day == day {
                days[days.count - 1].patched += record.deviceCost.bytesWithPatches
                days[days.count - 1].whole += record.deviceCost.bytesWhole
            } else {
                days.append((day, record.deviceCost.bytesWithPatches, record.deviceCost.bytesWhole))
            }
        }
        guard let first = days.first, let last = days.last else { return nil }
        let label = { (day: Int) in StatusFormat.day(Date(timeIntervalSince1970: Double(day) * 86400)) }
        return LinePlot(
            id: "plot-device-bytes", title: "Device download per day",
            series: [
                LinePlot.Series(name: "with patches", points: days.map { (Double($0.day), Double($0.patched)) }),
                LinePlot.Series(name: "whole lists (gzip)", points: days.map { (Double($0.day), Double($0.whole)) }),
            ],
            firstLabel: label(first.day), lastLabel: label(last.day), format: { StatusFormat.bytes(Int($0)) })
    }
}
