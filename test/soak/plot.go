package soak

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"
)

// Plot draws the run as an SVG a browser shows: the chain's resident memory and Go heap, its
// goroutines, and the p99 latency of the mutating calls and of lists (each per 10 s sample),
// over time, with the disruptions marked. Gaps are where the chain was down.
func Plot(samples []Sample, events []Event, duration time.Duration) []byte {
	const width, left, right, panelH, gap, top = 960, 70, 20, 170, 50, 60
	panels := []struct {
		title string
		lines []plotLine
	}{
		{"memory (MiB)", []plotLine{
			{"RSS", "#1f77b4", 2, func(s Sample) (float64, bool) { return s.RSS, s.Up }},
			{"Go heap in use", "#9ecae1", 1.5, func(s Sample) (float64, bool) { return s.Heap, s.Up }},
		}},
		{"goroutines", []plotLine{
			{"goroutines", "#2ca02c", 2, func(s Sample) (float64, bool) { return float64(s.Goroutines), s.Up }},
		}},
		{"p99 latency per 10 s (ms)", []plotLine{
			{"create, update, apply, patch, delete (highest)", "#d62728", 2, func(s Sample) (float64, bool) {
				return msf(mutatingP99(s)), s.Up && mutatingP99(s) > 0
			}},
			{"list", "#ff9896", 1.5, func(s Sample) (float64, bool) { return msf(s.P99["list"]), s.Up && s.P99["list"] > 0 }},
		}},
	}
	height := top + len(panels)*(panelH+gap) + 40
	plotW := float64(width - left - right)
	// The run's duration, or longer where the final checks ran past it.
	end := duration
	for _, s := range samples {
		end = max(end, s.At)
	}
	for _, e := range events {
		end = max(end, e.At)
	}
	span := math.Max(end.Minutes(), 0.5)
	x := func(d time.Duration) float64 { return left + plotW*math.Min(d.Minutes()/span, 1) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">chain soak, %v: resident memory, goroutines and p99 latency</text>`+"\n", left, duration)
	for i, p := range panels {
		y0 := float64(top + i*(panelH+gap)) // top of the panel
		hi := 0.0
		for _, l := range p.lines {
			for _, s := range samples {
				if v, ok := l.value(s); ok {
					hi = math.Max(hi, v)
				}
			}
		}
		step := niceStep(hi / 4)
		hi = math.Max(step*math.Ceil(hi/step), step)
		y := func(v float64) float64 { return y0 + panelH - panelH*v/hi }
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", left, y0-8, html.EscapeString(p.title))
		for v := 0.0; v <= hi+step/2; v += step {
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e0e0e0"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
				left, width-right, y(v), y(v), left-6, y(v)+4, trimFloat(v))
		}
		// Disruptions, as vertical lines across the panel.
		for _, e := range events {
			if color, dash := eventStyle(e.What); color != "" {
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="%s" stroke-dasharray="%s"/>`+"\n", x(e.At), x(e.At), y0, y0+panelH, color, dash)
			}
		}
		legendX := float64(width - right)
		for j := len(p.lines) - 1; j >= 0; j-- {
			l := p.lines[j]
			var pts []string
			flush := func() {
				switch {
				case len(pts) == 1: // a sample alone between gaps: a dot, as a line of one point shows nothing
					x, y, _ := strings.Cut(pts[0], ",")
					fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%.1f" fill="%s"/>`+"\n", x, y, l.width+1, l.color)
				case len(pts) > 1:
					fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="%.1f" points="%s"/>`+"\n", l.color, l.width, strings.Join(pts, " "))
				}
				pts = nil
			}
			for _, s := range samples {
				v, ok := l.value(s)
				if !ok {
					flush()
					continue
				}
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(s.At), y(v)))
			}
			flush()
			w := float64(7*len(l.name) + 30)
			legendX -= w
			fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="%s" stroke-width="3"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
				legendX, legendX+18, y0-12, y0-12, l.color, legendX+22, y0-8, html.EscapeString(l.name))
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="%.0f" height="%d" fill="none" stroke="#888"/>`+"\n", left, y0, plotW, panelH)
	}
	// The time axis, under the last panel, with the key to the disruption lines.
	axisY := float64(top + len(panels)*(panelH+gap) - gap + 16)
	step := niceStep(span / 8)
	for m := 0.0; m <= span+step/2; m += step {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x(time.Duration(m*float64(time.Minute))), axisY, trimFloat(m))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end">minutes</text>`+"\n", width-right, axisY+16)
	kx := float64(left)
	for _, k := range []struct{ what, name string }{{"SIGKILL chain", "chain killed and restarted"}, {"SIGKILL metrics server", "metrics server killed"}, {"cut ", "watch connections cut"}} {
		color, dash := eventStyle(k.what)
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="%s" stroke-width="2" stroke-dasharray="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			kx, kx+18, axisY+12, axisY+12, color, dash, kx+22, axisY+16, k.name)
		kx += float64(7*len(k.name) + 40)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

type plotLine struct {
	name  string
	color string
	width float64
	value func(Sample) (float64, bool)
}

// eventStyle is how a disruption is drawn; "" for events that are not drawn.
func eventStyle(what string) (color, dash string) {
	switch {
	case strings.HasPrefix(what, "SIGKILL chain"):
		return "#d62728", "none"
	case strings.HasPrefix(what, "SIGKILL metrics server"):
		return "#ff7f0e", "6,3"
	case strings.HasPrefix(what, "cut "):
		return "#7f7f7f", "2,3"
	}
	return "", ""
}

// niceStep is a round step (1, 2 or 5 times a power of ten) near raw.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
