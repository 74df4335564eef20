// Package webhook renders what OLM v0's install strategy creates for a CSV's webhooks,
// conversion webhooks and owned APIServices (pkg/controller/install: certresources.go,
// webhook.go, apiservice.go): the Service of each deployment that serves them, the certificate
// RBAC, the Validating and Mutating webhook configurations, the CRD conversion settings, the
// APIService objects and the Deployment's certificate volumes and mounts; plus OLM's validation
// of webhook descriptions, with its messages.
//
// # Certificates
//
// Where OLM keeps running (render.TargetRunning), it generates a self-signed CA and serving
// certificates inside the cluster, stores them in Secrets and rotates them; the render then
// predicts OLM's own objects (the OLM provider): the Secret <deployment>-service-cert of type
// kubernetes.io/tls, the olmcahash annotation on it and on the Deployment's pod template, the
// webhook configurations created with generateName, and every value OLM generates (the key
// pair, the CA, the caBundles, the hashes, the name suffix) marked as package generated
// documents; no key material is ever rendered.
//
// Where OLM's controllers do not run (render.TargetAbsent), none of that can be committed, and
// a certificate provider supplies the certificates instead, as OLM v1 does:
//
//   - cert-manager (the default): a self-signed Issuer and a Certificate per deployment whose
//     secretName is OLM's <deployment>-service-cert, and cert-manager.io/inject-ca-from on the
//     webhook configurations, conversion CRDs and APIServices;
//   - openshift-service-ca: service.beta.openshift.io/serving-cert-secret-name on the Service
//     and service.beta.openshift.io/inject-cabundle on the others;
//   - none: a render that needs certificates fails, saying which CSV and deployment need them.
//
// # Deliberate differences
//
// With a certificate provider, webhook configurations get a fixed name (OLM's generateName
// without its trailing "-", as OLM v1 does) instead of a random suffix, and the Deployment gets
// no olmcahash annotation. Their namespaceSelector is the OperatorGroup's selector when it has
// one, kubernetes.io/metadata.name In [targets] for targetNamespaces (OLM selects an
// olm.operatorgroup.uid/<uid> namespace label, which needs the group's UID), and none for a
// global group.
package webhook
