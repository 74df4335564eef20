-- Argo CD health check for operators.coreos.com/v1alpha1 Subscription (olm-render).
-- Install: argocd-cm key resource.customizations.health.operators.coreos.com_Subscription
-- (see argocd-cm-patch.yaml, which holds a byte-identical copy of this script).
--
-- A Subscription olm-render pinned (--olm=running: installPlanApproval Manual, startingCSV the
-- locked CSV) is healthy when OLM installed the locked CSV:
--   a condition ResolutionFailed, InstallPlanFailed, CatalogSourcesUnhealthy
--   or BundleUnpackFailed is True              -> Degraded, "type: reason: message"
--   status.installedCSV == spec.startingCSV    -> Healthy (an upgrade OLM offers past the lock
--                                                 is the ceiling working: olm-render approve
--                                                 holds it)
--   status.installedCSV past spec.startingCSV  -> Degraded, "installed X beyond the locked Y"
--                                                 (someone approved an InstallPlan by hand)
--   no installedCSV yet, or one below the lock -> Progressing, saying what OLM waits for
-- Past or below is read from the CSV names, <prefix>.v<major>.<minor>.<patch>[-<pre>] with one
-- ".v" and the same prefix, ordered as semver orders them (OLM orders bundles by version).
-- When the names do not say, an installed CSV other than the locked one from which OLM offers
-- no upgrade (status.currentCSV is the installed one) is Degraded: had it been below the lock,
-- OLM would offer the way up.
--
-- Any other Subscription (not Manual, or without startingCSV) is judged as Argo CD's built-in
-- check judges it, since this script replaces that check for every Subscription.
--
-- Argo CD loads only the base, table, package and os libraries: no string library here, so
-- a CSV name is taken apart by comparing strings (see chars).

local failing = {
  ResolutionFailed = true,
  InstallPlanFailed = true,
  CatalogSourcesUnhealthy = true,
  BundleUnpackFailed = true,
}

-- join returns its non-nil, non-empty arguments joined by ": ".
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

-- condition returns the condition of a type, or nil.
local function condition(status, type)
  if status == nil or status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == type then
      return c
    end
  end
  return nil
end

-- failure returns "type: reason: message" of the first failing condition that is True, or nil.
local function failure(status)
  if status == nil or status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if failing[c.type] and c.status == "True" then
      return join(c.type, c.reason, c.message)
    end
  end
  return nil
end

-- The characters of a Kubernetes object name, in byte order.
local alphabet = {
  "-", ".", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
  "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
  "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z",
}

-- chars returns the characters of s, or nil when s holds one no object name holds. The
-- character after a known prefix of s is the greatest c of the alphabet with prefix .. c <= s,
-- provided prefix .. c is a prefix of s ("~" sorts after every character of the alphabet).
local function chars(s)
  local out, prefix = {}, ""
  for _ = 1, #s do
    local found = nil
    for _, c in ipairs(alphabet) do
      if prefix .. c <= s then
        found = c
      else
        break
      end
    end
    if found == nil or s >= prefix .. found .. "~" then
      return nil
    end
    prefix = prefix .. found
    table.insert(out, found)
  end
  return out
end

local function digit(c)
  return c >= "0" and c <= "9"
end

-- version returns the prefix, the numbers {major, minor, patch} and whether there is a
-- prerelease, of a CSV named <prefix>.v<major>.<minor>.<patch>[-<pre>] with one ".v" and
-- numbers of at most 15 digits (exact as Lua numbers); nil for any other name.
local function version(name)
  local cs = chars(name)
  if cs == nil then
    return nil
  end
  local at = nil
  for i = 1, #cs - 1 do
    if cs[i] == "." and cs[i + 1] == "v" then
      if at ~= nil then
        return nil
      end
      at = i
    end
  end
  if at == nil or at == 1 then
    return nil
  end
  local numbers, digits, pre = {}, "", false
  for i = at + 2, #cs do
    local c = cs[i]
    if digit(c) and #digits < 15 then
      digits = digits .. c
    elseif digits ~= "" and c == "." and #numbers < 2 then
      table.insert(numbers, tonumber(digits))
      digits = ""
    elseif digits ~= "" and c == "-" and #numbers == 2 and i < #cs then
      pre = true
      break
    else
      return nil
    end
  end
  if digits == "" or #numbers ~= 2 then
    return nil
  end
  table.insert(numbers, tonumber(digits))
  return table.concat(cs, "", 1, at - 1), numbers, pre
end

-- order compares two CSV names by version: 1 when a is past b, -1 when below, nil when the
-- names do not say (another convention, another prefix, or two prereleases of one version).
local function order(a, b)
  local pa, va, prea = version(a)
  local pb, vb, preb = version(b)
  if pa == nil or pb == nil or pa ~= pb then
    return nil
  end
  for i = 1, 3 do
    if va[i] > vb[i] then
      return 1
    elseif va[i] < vb[i] then
      return -1
    end
  end
  if prea == preb then
    return nil
  elseif prea then
    return -1
  end
  return 1
end

-- waiting says what OLM is doing for a Subscription that has not reached its locked CSV.
local function waiting(status)
  local plan = nil
  if status.installPlanRef ~= nil then
    plan = status.installPlanRef.name
  elseif status.installplan ~= nil then
    plan = status.installplan.name
  end
  local what = "an InstallPlan"
  if plan ~= nil then
    what = "InstallPlan " .. plan
  end
  local pending = condition(status, "InstallPlanPending")
  if pending ~= nil and pending.status == "True" then
    if pending.reason == "RequiresApproval" then
      return join(what, "waits for approval by olm-render approve")
    end
    return join(what, pending.reason, pending.message)
  end
  local unpacking = condition(status, "BundleUnpacking")
  if unpacking ~= nil and unpacking.status == "True" then
    return join("unpacking the bundle of " .. (status.currentCSV or "the next CSV"), unpacking.message)
  end
  if status.currentCSV ~= nil and status.currentCSV ~= status.installedCSV then
    return "OLM is installing " .. status.currentCSV
  end
  return "waiting for OLM to resolve it"
end

-- pinned judges a Subscription olm-render pinned to its locked CSV.
local function pinned(sub)
  local hs = {}
  local locked = sub.spec.startingCSV
  local status = sub.status
  if status == nil then
    hs.status = "Progressing"
    hs.message = "no status yet: waiting for OLM's catalog-operator to resolve it (locked to " .. locked .. ")"
    return hs
  end
  local failed = failure(status)
  if failed ~= nil then
    hs.status = "Degraded"
    hs.message = failed
    return hs
  end
  local installed = status.installedCSV
  if installed == nil or installed == "" then
    hs.status = "Progressing"
    hs.message = "no installedCSV yet (locked to " .. locked .. "): " .. waiting(status)
    return hs
  end
  if installed == locked then
    hs.status = "Healthy"
    hs.message = "at the locked CSV " .. locked
    if status.currentCSV ~= nil and status.currentCSV ~= installed then
      hs.message = hs.message .. "; OLM offers " .. status.currentCSV .. ", past the lock, which olm-render approve holds"
    end
    return hs
  end
  local o = order(installed, locked)
  local offers = status.currentCSV ~= nil and status.currentCSV ~= installed
  if o == 1 then
    hs.status = "Degraded"
    hs.message = "installed " .. installed .. " beyond the locked " .. locked .. ": an InstallPlan was approved outside the contract"
  elseif o == nil and not offers then
    hs.status = "Degraded"
    hs.message = "installed " .. installed .. ", not the locked " .. locked .. ", and OLM offers no upgrade from it"
  else
    hs.status = "Progressing"
    hs.message = "installed " .. installed .. ", on the way to the locked " .. locked .. ": " .. waiting(status)
  end
  return hs
end

-- builtin judges any other Subscription as Argo CD's built-in Subscription check does
-- (resource_customizations/operators.coreos.com/Subscription/health.lua, with its rule that a
-- Manual Subscription whose InstallPlan waits for approval while a CSV is installed is Healthy).
local function builtin(sub)
  local hs = {}
  if sub.status ~= nil and sub.status.conditions ~= nil then
    local degraded, pending, msg = 0, 0, ""
    for i, c in ipairs(sub.status.conditions) do
      msg = msg .. i .. ": " .. c.type .. " | " .. c.status .. "\n"
      if c.type == "InstallPlanPending" and c.status == "True" then
        pending = pending + 1
      elseif c.type == "InstallPlanMissing" and c.reason ~= "ReferencedInstallPlanNotFound" then
        degraded = degraded + 1
      elseif (c.type == "CatalogSourcesUnhealthy" or c.type == "InstallPlanFailed" or c.type == "ResolutionFailed") and c.status == "True" then
        degraded = degraded + 1
      end
    end
    if degraded == 0 and pending == 0 then
      hs.status = "Healthy"
      hs.message = msg
    elseif degraded == 0 and sub.spec ~= nil and sub.spec.installPlanApproval == "Manual" and sub.status.installedCSV ~= nil then
      hs.status = "Healthy"
      hs.message = "An install plan for a subscription is pending installation but install plan approval is set to manual so considering this as healthy: " .. msg
    elseif degraded == 0 then
      hs.status = "Progressing"
      hs.message = "An install plan for a subscription is pending installation"
    else
      hs.status = "Degraded"
      hs.message = msg
    end
    return hs
  end
  hs.status = "Progressing"
  hs.message = "An install plan for a subscription is pending installation"
  return hs
end

local spec = obj.spec or {}
if spec.installPlanApproval == "Manual" and spec.startingCSV ~= nil and spec.startingCSV ~= "" then
  return pinned(obj)
end
return builtin(obj)
