package job

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// indexes is a set of completion indexes, written in status.completedIndexes as ordered,
// comma-separated numbers and intervals: "0-2,5,7-8".
type indexes = sets.Set[int]

func parseIndexes(s string) indexes {
	out := indexes{}
	for part := range strings.SplitSeq(s, ",") {
		from, to, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(from)
		if err != nil {
			continue
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(to); err != nil {
				continue
			}
		}
		for i := first; i <= last; i++ {
			out.Insert(i)
		}
	}
	return out
}

func formatIndexes(set indexes) string {
	list := set.UnsortedList()
	slices.Sort(list)
	var parts []string
	for i := 0; i < len(list); {
		j := i
		for j+1 < len(list) && list[j+1] == list[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(list[i]))
		default:
			parts = append(parts, strconv.Itoa(list[i])+"-"+strconv.Itoa(list[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
