package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dsqllint/dsqllint/rules"
)

// writeMarkdown writes a summary a person reads in a job summary
// ($GITHUB_STEP_SUMMARY) or a pull-request comment: how many findings of
// which rule and severity, the files with the most, then each finding
// with its rule's page. With a baseline, the findings it records are
// counted apart and not listed. The output depends on the findings only.
func writeMarkdown(w io.Writer, r *result, fs []*finding) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## dsqllint: %s\n\n", headline(fs, r))
	if r.stale > 0 {
		fmt.Fprintf(bw, "%s recorded in the baseline no longer %s: shrink it with `-write-baseline`.\n\n", plural(r.stale, "finding"), verb(r.stale, "occurs", "occur"))
	}
	if len(fs) == 0 && len(r.known) == 0 {
		return bw.Flush()
	}

	type row struct {
		id, name, url string
		severity      rules.Severity
		fresh, known  int
	}
	rows := map[string]*row{}
	count := func(f *finding, known bool) {
		id := f.ruleID()
		rw := rows[id]
		if rw == nil {
			rw = &row{id: id, severity: f.severity()}
			if f.rule != nil {
				rw.name, rw.url = f.rule.Name, f.rule.DocURL()
			}
			rows[id] = rw
		}
		if known {
			rw.known++
		} else {
			rw.fresh++
		}
	}
	for _, f := range fs {
		count(f, false)
	}
	for _, f := range r.known {
		count(f, true)
	}
	sorted := make([]*row, 0, len(rows))
	for _, rw := range rows {
		sorted = append(sorted, rw)
	}
	slices.SortFunc(sorted, func(a, b *row) int { return cmp.Compare(a.id, b.id) })

	if r.baselined {
		bw.WriteString("| Rule | Severity | New | Known |\n|---|---|---:|---:|\n")
	} else {
		bw.WriteString("| Rule | Severity | Findings |\n|---|---|---:|\n")
	}
	for _, rw := range sorted {
		fmt.Fprintf(bw, "| %s | %s | %d |", ruleLink(rw.id, rw.name, rw.url), rw.severity, rw.fresh)
		if r.baselined {
			fmt.Fprintf(bw, " %d |", rw.known)
		}
		bw.WriteString("\n")
	}
	fmt.Fprintf(bw, "| **Total** | | **%d** |", len(fs))
	if r.baselined {
		fmt.Fprintf(bw, " **%d** |", len(r.known))
	}
	bw.WriteString("\n")

	if len(fs) > 0 {
		perFile := map[string]int{}
		for _, f := range fs {
			perFile[f.path]++
		}
		files := make([]string, 0, len(perFile))
		for p := range perFile {
			files = append(files, p)
		}
		slices.SortFunc(files, func(a, b string) int {
			return cmp.Or(cmp.Compare(perFile[b], perFile[a]), cmp.Compare(a, b))
		})
		const top = 10
		title := "Files with the most findings"
		if r.baselined {
			title = "Files with the most new findings"
		}
		fmt.Fprintf(bw, "\n### %s\n\n| File | Findings |\n|---|---:|\n", title)
		for _, p := range files[:min(top, len(files))] {
			fmt.Fprintf(bw, "| `%s` | %d |\n", p, perFile[p])
		}
		if len(files) > top {
			fmt.Fprintf(bw, "| %s more | |\n", plural(len(files)-top, "file"))
		}

		title = "Findings"
		if r.baselined {
			title = "New findings"
		}
		fmt.Fprintf(bw, "\n### %s\n\n", title)
		for _, f := range fs {
			msg := strings.TrimPrefix(firstLine(f.Message), f.ruleID()+" ")
			if f.rule != nil {
				msg = strings.TrimPrefix(msg, f.rule.Name+": ")
			}
			fmt.Fprintf(bw, "- `%s:%d:%d` %s: %s\n", f.path, f.pos.Line, f.pos.Column, ruleLink(f.ruleID(), "", ruleURL(f)), msg)
		}
	}
	return bw.Flush()
}

// headline is the summary's title: the findings by severity, and the
// baseline's share.
func headline(fs []*finding, r *result) string {
	var errs, warns int
	for _, f := range fs {
		if f.severity() == rules.Error {
			errs++
		} else {
			warns++
		}
	}
	what := "no findings"
	if r.baselined {
		what = "no new findings"
	}
	if len(fs) > 0 {
		what = plural(len(fs), "finding")
		if r.baselined {
			what = plural(len(fs), "new finding")
		}
		what += fmt.Sprintf(" (%s, %s)", plural(errs, "error"), plural(warns, "warning"))
	}
	if r.baselined {
		what += fmt.Sprintf(", %d known from the baseline", len(r.known))
	}
	return what
}

func ruleLink(id, name, url string) string {
	text := id
	if name != "" {
		text += " " + name
	}
	if url == "" {
		return text
	}
	return "[" + text + "](" + url + ")"
}

func ruleURL(f *finding) string {
	if f.rule == nil {
		return ""
	}
	return f.rule.DocURL()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
