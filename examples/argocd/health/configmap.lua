-- Argo CD health check for v1 ConfigMap (olm-render).
-- Install: argocd-cm key resource.customizations.health.ConfigMap (see argocd-cm-patch.yaml,
-- which holds a byte-identical copy of this script).
--
-- Argo CD keys health checks by kind, so this script judges every ConfigMap. Only an
-- approval contract (label olm-render.dev/approval-contract: "true", written by
-- olm-render render --olm=running, one per namespace) is judged; it reports the health that
-- olm-render approve writes on it:
--   annotation olm-render.dev/health Healthy     -> Healthy
--   annotation olm-render.dev/health Degraded    -> Degraded
--   annotation olm-render.dev/health Progressing -> Progressing
--   no annotation                                -> Progressing, "waiting for olm-render approve
--                                                   to report"
--   any other value                              -> Progressing, "unknown health X"
-- with the message from the annotation olm-render.dev/health-message. The approver reports
-- Healthy only once every Subscription of the namespace installed its locked CSV and that CSV
-- Succeeded. Every other ConfigMap is Healthy, as a ConfigMap with no health check is.

local hs = {}
local metadata = obj.metadata or {}
local labels = metadata.labels or {}
if labels["olm-render.dev/approval-contract"] ~= "true" then
  hs.status = "Healthy"
  hs.message = ""
  return hs
end

local annotations = metadata.annotations or {}
local health = annotations["olm-render.dev/health"]
local message = annotations["olm-render.dev/health-message"] or ""
if health == nil or health == "" then
  hs.status = "Progressing"
  hs.message = "waiting for olm-render approve to report"
elseif health == "Healthy" or health == "Degraded" or health == "Progressing" then
  hs.status = health
  hs.message = message
else
  hs.status = "Progressing"
  hs.message = "unknown health " .. health .. " from olm-render approve"
  if message ~= "" then
    hs.message = hs.message .. ": " .. message
  end
end
return hs
