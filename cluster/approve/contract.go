package approve

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/olm-render/olm-render/resolver/contract"
)

// Contract is what the approver knows of one namespace's approval contract: the contract, or
// why there is none.
type Contract struct {
	// Namespace is the namespace the contract is for.
	Namespace string
	// Found says whether the namespace has a contract ConfigMap.
	Found bool
	// Contract is the contract read from the ConfigMap; nil when it is missing or unreadable.
	Contract *contract.Namespace
	// Err is why the ConfigMap's contract could not be read.
	Err error
}

// ContractOf reads the contract of a namespace from its contract ConfigMap, nil when the
// namespace has none.
func ContractOf(namespace string, cm *corev1.ConfigMap) Contract {
	c := Contract{Namespace: namespace}
	if cm == nil {
		return c
	}
	c.Found = true
	c.Contract, c.Err = contract.FromConfigMap(cm)
	return c
}

// ConfigMapRef names the contract ConfigMap of the namespace, namespace/name, for messages.
func (c Contract) ConfigMapRef() string {
	return c.Namespace + "/" + contract.ConfigMapName
}

// contractsOnly narrows a listing or watch of ConfigMaps to the contracts: by name, with the
// field selector metadata.name, which the API server authorizes against a role's resourceNames
// (so the approver may read no other ConfigMap), and by label.
func contractsOnly(o *metav1.ListOptions) {
	o.FieldSelector = fields.OneTermEqualSelector("metadata.name", contract.ConfigMapName).String()
	o.LabelSelector = contract.Label + "=true"
}

// isContract reports whether a ConfigMap is a contract: the right name and the label.
func isContract(cm *corev1.ConfigMap) bool {
	return cm.Name == contract.ConfigMapName && cm.Labels[contract.Label] == "true"
}
