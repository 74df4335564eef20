-- Argo CD health check for operators.coreos.com/v1alpha1 ClusterServiceVersion (olm-render).
-- Install: argocd-cm key resource.customizations.health.operators.coreos.com_ClusterServiceVersion
-- (see argocd-cm-patch.yaml, which holds a byte-identical copy of this script).
--
-- status.phase is written by OLM's olm-operator:
--   Succeeded                        -> Healthy (also a copied CSV: reason Copied)
--   Failed                           -> Degraded, "reason: message"
--   Pending, InstallReady, Installing,
--   Replacing, Deleting, Unknown     -> Progressing, "phase: reason: message"
--   no status (or no status.phase)   -> Healthy: no olm-operator manages this CSV (olm-render
--                                       --olm=absent), so the health of its Deployments gates
--                                       the sync instead;
--                                       Progressing when it carries the finalizer
--                                       operators.coreos.com/csv-cleanup: olm-operator adds it
--                                       on its first sync, before it writes any status, so that
--                                       CSV is olm-operator's and its phase is on its way.
-- Argo CD loads only the base, table, package and os libraries: no string library here.

local progressing = {
  Pending = true,
  InstallReady = true,
  Installing = true,
  Replacing = true,
  Deleting = true,
  Unknown = true,
}

-- join returns its non-nil, non-empty arguments joined by ": " (varargs, since a nil
-- reason would end ipairs early on a table).
local function join(...)
  local out = ""
  for i = 1, select("#", ...) do
    local part = select(i, ...)
    if part ~= nil and part ~= "" then
      if out == "" then
        out = part
      else
        out = out .. ": " .. part
      end
    end
  end
  return out
end

-- describe returns "reason: message", or the phase when OLM left both empty.
local function describe(status)
  local detail = join(status.reason, status.message)
  if detail == "" then
    return status.phase
  end
  return detail
end

-- claimed reports whether olm-operator synced the CSV: it carries olm-operator's finalizer.
local function claimed(csv)
  if csv.metadata == nil or csv.metadata.finalizers == nil then
    return false
  end
  for _, f in ipairs(csv.metadata.finalizers) do
    if f == "operators.coreos.com/csv-cleanup" then
      return true
    end
  end
  return false
end

local hs = {}
local status = obj.status
if status == nil or status.phase == nil or status.phase == "" then
  if claimed(obj) then
    hs.status = "Progressing"
    hs.message = "olm-operator synced it and has not written a phase yet"
    return hs
  end
  hs.status = "Healthy"
  hs.message = "no status: OLM does not manage this CSV; health comes from its Deployments"
  return hs
end

local phase = status.phase
if phase == "Succeeded" then
  hs.status = "Healthy"
  hs.message = describe(status)
elseif phase == "Failed" then
  hs.status = "Degraded"
  hs.message = describe(status)
elseif progressing[phase] then
  hs.status = "Progressing"
  hs.message = join(phase, status.reason, status.message)
else
  hs.status = "Progressing"
  hs.message = join("unknown phase " .. phase, status.reason, status.message)
end
return hs
