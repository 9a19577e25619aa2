package gen

import (
	"os"
	"strconv"
	"strings"
)

// ParentArgs returns the arguments of the process that started this one,
// nil when they cannot be read.
func ParentArgs() []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/cmdline")
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}
