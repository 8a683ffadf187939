package words

import (
	"testing"
	"time"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "pod", "0 pods"},
		{1, "pod", "1 pod"},
		{2, "instance", "2 instances"},
		{1, "root cause", "1 root cause"},
		{3, "root cause", "3 root causes"},
		{2, "blocking dependent", "2 blocking dependents"},
		{2, "StorageClass", "2 StorageClasses"},
		{2, "Ingress", "2 Ingresses"},
		{2, "NetworkPolicy", "2 NetworkPolicies"},
		{2, "Gateway", "2 Gateways"},
		{2, "Endpoints", "2 Endpoints"},
		{1, "Endpoints", "1 Endpoints"},
		{2, "box", "2 boxes"},
		{2, "PVC", "2 PVCs"},
		{2, "finalizer", "2 finalizers"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

func TestAgree(t *testing.T) {
	if got := Count(1, "pod") + " " + Agree(1, "remains", "remain"); got != "1 pod remains" {
		t.Errorf("got %q", got)
	}
	if got := Count(2, "pod") + " " + Agree(2, "remains", "remain"); got != "2 pods remain" {
		t.Errorf("got %q", got)
	}
}

func TestAge(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		// What kubectl get prints in AGE for these ages.
		{0, "0s"},
		{45 * time.Second, "45s"},
		{-45 * time.Second, "45s"},
		{90 * time.Second, "90s"},
		{5 * time.Minute, "5m"},
		{5*time.Minute + 30*time.Second, "5m30s"},
		{2 * time.Hour, "120m"},
		{2*time.Hour + 18*time.Minute + 48*time.Second, "138m"},
		{3 * time.Hour, "3h"},
		{5*time.Hour + 12*time.Minute, "5h12m"},
		{30*time.Hour + 59*time.Minute, "30h"},
		{72 * time.Hour, "3d"},
		{82*time.Hour + 53*time.Minute, "3d10h"},
		{45 * 24 * time.Hour, "45d"},
		{800 * 24 * time.Hour, "2y70d"},
	} {
		if got := Age(c.d); got != c.want {
			t.Errorf("Age(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
