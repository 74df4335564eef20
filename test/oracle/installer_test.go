package oracle

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/api/wrappers"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/install"
	listerfakes "github.com/operator-framework/operator-lifecycle-manager/pkg/fakes/client-go/listers"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/operatorclient/operatorclientmocks"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/operatorlister/operatorlisterfakes"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	"github.com/olm-render/olm-render/render/webhook"
)

// stop ends OLM's installer once its certificate requirements are done.
type stop struct{}

// reporter turns gomock's failure on an unexpected call (the installer moving on to the
// Deployments) into a panic the harness recovers from.
type reporter struct{ t *testing.T }

func (r reporter) Errorf(format string, args ...any) { r.t.Logf(format, args...) }
func (r reporter) Fatalf(string, ...any)             { panic(stop{}) }
func (r reporter) Helper()                           {}

// certObjects is what OLM's installer creates for certificates, captured from its client calls.
type certObjects struct {
	services            map[string]*corev1ac.ServiceApplyConfiguration
	roles               map[string]*rbacv1.Role
	roleBindings        map[string]*rbacv1.RoleBinding
	clusterRoleBindings map[string]*rbacv1ac.ClusterRoleBindingApplyConfiguration
	authReaders         map[string]*rbacv1ac.RoleBindingApplyConfiguration
	secrets             map[string]*corev1.Secret
}

func notFound(resource string) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, "")
}

// olmCertObjects runs OLM's StrategyDeploymentInstaller.Install with a mocked client and
// captures the certificate Services and RBAC it applies or creates.
func olmCertObjects(t *testing.T, csv *v1alpha1.ClusterServiceVersion) certObjects {
	out := certObjects{map[string]*corev1ac.ServiceApplyConfiguration{}, map[string]*rbacv1.Role{}, map[string]*rbacv1.RoleBinding{},
		map[string]*rbacv1ac.ClusterRoleBindingApplyConfiguration{}, map[string]*rbacv1ac.RoleBindingApplyConfiguration{}, map[string]*corev1.Secret{}}
	ctrl := gomock.NewController(reporter{t})
	client := operatorclientmocks.NewMockClientInterface(ctrl)
	client.EXPECT().ApplyService(gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(func(ac *corev1ac.ServiceApplyConfiguration, _ metav1.ApplyOptions) (*corev1.Service, error) {
		out.services[*ac.Name] = ac
		return &corev1.Service{}, nil
	})
	client.EXPECT().CreateSecret(gomock.Any()).AnyTimes().DoAndReturn(func(s *corev1.Secret) (*corev1.Secret, error) {
		out.secrets[s.Name] = s
		return s, nil
	})
	client.EXPECT().CreateRole(gomock.Any()).AnyTimes().DoAndReturn(func(r *rbacv1.Role) (*rbacv1.Role, error) {
		out.roles[r.Name] = r
		return r, nil
	})
	client.EXPECT().CreateRoleBinding(gomock.Any()).AnyTimes().DoAndReturn(func(b *rbacv1.RoleBinding) (*rbacv1.RoleBinding, error) {
		out.roleBindings[b.Name] = b
		return b, nil
	})
	client.EXPECT().ApplyClusterRoleBinding(gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(func(ac *rbacv1ac.ClusterRoleBindingApplyConfiguration, _ metav1.ApplyOptions) (*rbacv1.ClusterRoleBinding, error) {
		out.clusterRoleBindings[*ac.Name] = ac
		return &rbacv1.ClusterRoleBinding{}, nil
	})
	client.EXPECT().ApplyRoleBinding(gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(func(ac *rbacv1ac.RoleBindingApplyConfiguration, _ metav1.ApplyOptions) (*rbacv1.RoleBinding, error) {
		out.authReaders[*ac.Name] = ac
		return &rbacv1.RoleBinding{}, nil
	})

	lister := &operatorlisterfakes.FakeOperatorLister{}
	core, rbacLister := &operatorlisterfakes.FakeCoreV1Lister{}, &operatorlisterfakes.FakeRbacV1Lister{}
	lister.CoreV1Returns(core)
	lister.RbacV1Returns(rbacLister)
	secrets, secretsNS := &listerfakes.FakeSecretLister{}, &listerfakes.FakeSecretNamespaceLister{}
	core.SecretListerReturns(secrets)
	secrets.SecretsReturns(secretsNS)
	secretsNS.GetReturns(nil, notFound("secrets"))
	roles, rolesNS := &listerfakes.FakeRoleLister{}, &listerfakes.FakeRoleNamespaceLister{}
	rbacLister.RoleListerReturns(roles)
	roles.RolesReturns(rolesNS)
	rolesNS.GetReturns(nil, notFound("roles"))
	bindings, bindingsNS := &listerfakes.FakeRoleBindingLister{}, &listerfakes.FakeRoleBindingNamespaceLister{}
	rbacLister.RoleBindingListerReturns(bindings)
	bindings.RoleBindingsReturns(bindingsNS)
	bindingsNS.GetReturns(nil, notFound("rolebindings"))
	crbs := &listerfakes.FakeClusterRoleBindingLister{}
	rbacLister.ClusterRoleBindingListerReturns(crbs)
	crbs.GetReturns(nil, notFound("clusterrolebindings"))

	strategyClient := wrappers.NewInstallStrategyDeploymentClient(client, lister, csv.Namespace)
	installer := install.NewStrategyDeploymentInstaller(strategyClient, nil, csv, nil, nil,
		csv.Spec.APIServiceDefinitions.Owned, csv.Spec.WebhookDefinitions)
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stop); !ok {
					panic(r)
				}
			}
		}()
		strategy := csv.Spec.InstallStrategy.StrategySpec.DeepCopy()
		_ = installer.Install(strategy)
	}()
	return out
}

// TestCertObjectsAgainstOLMInstaller compares the Services and certificate RBAC olm-render
// renders with what OLM's installer creates for every CSV with webhooks or owned APIServices.
func TestCertObjectsAgainstOLMInstaller(t *testing.T) {
	var compared, equal int
	for _, csv := range csvs(t) {
		if len(csv.Spec.WebhookDefinitions) == 0 && len(csv.Spec.APIServiceDefinitions.Owned) == 0 {
			continue
		}
		csv.APIVersion, csv.Kind = "operators.coreos.com/v1alpha1", "ClusterServiceVersion"
		theirs := olmCertObjects(t, csv)
		res, err := webhook.Render(webhook.Input{CSV: csv, Targets: []string{""}, Provider: webhook.CertManager})
		if err != nil {
			t.Fatal(err)
		}
		check := func(kind, name string, want, got any) {
			compared++
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s %s (-OLM +olm-render):\n%s", csv.Name, kind, name, diff)
				return
			}
			equal++
		}
		seen := 0
		for _, o := range res.Objects {
			switch o := o.(type) {
			case *corev1.Service:
				ac, ok := theirs.services[o.Name]
				if !ok {
					t.Errorf("%s: OLM creates no Service %s", csv.Name, o.Name)
					continue
				}
				seen++
				var ports []corev1.ServicePort
				for _, p := range ac.Spec.Ports {
					ports = append(ports, corev1.ServicePort{Name: *p.Name, Port: *p.Port, TargetPort: *p.TargetPort})
				}
				check("Service", o.Name, map[string]any{"ports": ports, "selector": ac.Spec.Selector, "labels": ac.Labels},
					map[string]any{"ports": o.Spec.Ports, "selector": o.Spec.Selector, "labels": o.Labels})
			case *rbacv1.Role:
				r, ok := theirs.roles[o.Name]
				if !ok {
					t.Errorf("%s: OLM creates no Role %s", csv.Name, o.Name)
					continue
				}
				seen++
				check("Role", o.Name, map[string]any{"rules": r.Rules, "labels": r.Labels}, map[string]any{"rules": o.Rules, "labels": o.Labels})
			case *rbacv1.RoleBinding:
				if b, ok := theirs.roleBindings[o.Name]; ok {
					seen++
					check("RoleBinding", o.Name, map[string]any{"subjects": b.Subjects, "roleRef": b.RoleRef, "labels": b.Labels},
						map[string]any{"subjects": o.Subjects, "roleRef": o.RoleRef, "labels": o.Labels})
				} else if ac, ok := theirs.authReaders[o.Name]; ok {
					seen++
					check("RoleBinding", o.Name, map[string]any{"namespace": *ac.Namespace, "subjects": subjectsOf(ac.Subjects), "roleRef": roleRefOf(ac.RoleRef), "labels": ac.Labels},
						map[string]any{"namespace": o.Namespace, "subjects": o.Subjects, "roleRef": o.RoleRef, "labels": o.Labels})
				} else {
					t.Errorf("%s: OLM creates no RoleBinding %s", csv.Name, o.Name)
				}
			case *rbacv1.ClusterRoleBinding:
				ac, ok := theirs.clusterRoleBindings[o.Name]
				if !ok {
					t.Errorf("%s: OLM creates no ClusterRoleBinding %s", csv.Name, o.Name)
					continue
				}
				seen++
				check("ClusterRoleBinding", o.Name, map[string]any{"subjects": subjectsOf(ac.Subjects), "roleRef": roleRefOf(ac.RoleRef), "labels": ac.Labels},
					map[string]any{"subjects": o.Subjects, "roleRef": o.RoleRef, "labels": o.Labels})
			}
		}
		if want := len(theirs.services) + len(theirs.roles) + len(theirs.roleBindings) + len(theirs.clusterRoleBindings) + len(theirs.authReaders); seen != want {
			t.Errorf("%s: olm-render renders %d certificate objects, OLM %d (%v)", csv.Name, seen, want, slices.Sorted(keys(theirs)))
		}
	}
	t.Logf("certificate Services and RBAC: %d of %d objects equal to what OLM's installer creates", equal, compared)
	if compared < 50 {
		t.Errorf("only %d objects compared", compared)
	}
}

func keys(c certObjects) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, m := range []map[string]bool{set(c.services), set(c.roles), set(c.roleBindings), set(c.clusterRoleBindings), set(c.authReaders)} {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		}
	}
}

func set[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func subjectsOf(acs []rbacv1ac.SubjectApplyConfiguration) []rbacv1.Subject {
	var out []rbacv1.Subject
	for _, s := range acs {
		sub := rbacv1.Subject{}
		if s.Kind != nil {
			sub.Kind = *s.Kind
		}
		if s.APIGroup != nil {
			sub.APIGroup = *s.APIGroup
		}
		if s.Name != nil {
			sub.Name = *s.Name
		}
		if s.Namespace != nil {
			sub.Namespace = *s.Namespace
		}
		out = append(out, sub)
	}
	return out
}

func roleRefOf(ac *rbacv1ac.RoleRefApplyConfiguration) rbacv1.RoleRef {
	var r rbacv1.RoleRef
	if ac == nil {
		return r
	}
	if ac.APIGroup != nil {
		r.APIGroup = *ac.APIGroup
	}
	if ac.Kind != nil {
		r.Kind = *ac.Kind
	}
	if ac.Name != nil {
		r.Name = *ac.Name
	}
	return r
}
