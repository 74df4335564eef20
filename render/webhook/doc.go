// Package webhook renders what OLM v0's install strategy creates for a CSV's webhooks,
// conversion webhooks and owned APIServices (pkg/controller/install: certresources.go,
// webhook.go, apiservice.go): the Service of each deployment that serves them, the certificate
// RBAC, the Validating and Mutating webhook configurations, the CRD conversion settings, the
// APIService objects and the Deployment's certificate volumes and mounts; plus OLM's validation
// of webhook descriptions, with its messages.
//
// # Certificates
//
// OLM generates a self-signed CA and serving certificates inside the cluster, stores them in
// Secrets and rotates them; none of that can be committed. A certificate provider supplies them
// instead, as OLM v1 does:
//
//   - cert-manager (the default): a self-signed Issuer and a Certificate per deployment whose
//     secretName is OLM's <deployment>-service-cert, and cert-manager.io/inject-ca-from on the
//     webhook configurations, conversion CRDs and APIServices;
//   - openshift-service-ca: service.beta.openshift.io/serving-cert-secret-name on the Service
//     and service.beta.openshift.io/inject-cabundle on the others;
//   - none: a render that needs certificates fails, saying which CSV and deployment need them.
//
// No key material is ever rendered.
//
// # Deliberate differences
//
// Webhook configurations get a fixed name (OLM's generateName without its trailing "-", as OLM
// v1 does) instead of a random suffix. Their namespaceSelector is the OperatorGroup's selector
// when it has one, kubernetes.io/metadata.name In [targets] for targetNamespaces (OLM selects
// an olm.operatorgroup.uid/<uid> namespace label, which needs the group's UID), and none for a
// global group. The Deployment gets no olmcahash annotation.
package webhook
