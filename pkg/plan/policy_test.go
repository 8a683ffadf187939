package plan

import "testing"

func TestParsePolicy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Policy
	}{
		{"background", PolicyBackground}, {"Foreground", PolicyForeground}, {"orphan", PolicyOrphan},
		{"true", PolicyBackground}, {"false", PolicyOrphan}, {"default", PolicyDefault}, {"none", PolicyDefault},
	} {
		got, err := ParsePolicy(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParsePolicy("sideways"); err == nil || err.Error() != `unknown cascade "sideways": use background, foreground, orphan or default` {
		t.Errorf("ParsePolicy(sideways) error = %v", err)
	}
	for _, c := range PolicyChoices() {
		if _, err := ParsePolicy(c); err != nil {
			t.Errorf("the offered choice %q does not parse: %v", c, err)
		}
	}
}

func TestParseFinalizerAssumption(t *testing.T) {
	for _, c := range FinalizerAssumptions() {
		if got, err := ParseFinalizerAssumption(c); err != nil || string(got) != c {
			t.Errorf("ParseFinalizerAssumption(%q) = %q, %v", c, got, err)
		}
	}
	if _, err := ParseFinalizerAssumption("Remove"); err == nil {
		t.Error("ParseFinalizerAssumption accepted Remove: --assume-finalizers has always been exact")
	}
}
