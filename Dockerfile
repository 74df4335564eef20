# syntax=docker/dockerfile:1
# olm-render as a container: the KRM function for kustomize (entrypoint `olm-render fn`) and the
# Argo CD plugin sidecar image (the sidecar runs Argo CD's cmp-server, which calls
# `olm-render argocd generate`).
#
# Released as ghcr.io/olm-render/olm-render:<tag> (linux/amd64 and linux/arm64, signed with
# cosign; see .goreleaser.yaml), which builds it from the binaries it built (BINARY=prebuilt).
# Build it yourself from a checkout, for your platform (BuildKit builds only the stages used):
#   docker build --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg COMMIT=$(git rev-parse HEAD) -t olm-render:dev .
#
# Any user: OpenShift's restricted SCC runs the container as an arbitrary UID with group 0,
# Argo CD's sidecar as 999, kustomize's container functions as nobody. So nothing here depends
# on the UID: the binary is owned by root and readable and executable by every user, and the
# only place written is /tmp (mode 1777 in the base image), which HOME and XDG_CACHE_HOME point
# at (the image cache, for CatalogSources given by spec.image, defaults to
# $XDG_CACHE_HOME/olm-render; OLM_RENDER_CACHE overrides it). USER is a numeric non-root UID, so
# runAsNonRoot admits the image without a runAsUser; a runtime-assigned UID replaces it.
ARG BINARY=source

# source: olm-render built from this checkout.
FROM golang:1.26 AS source
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
    -o /out/olm-render ./cmd/olm-render

# prebuilt: the binary goreleaser built for the target platform (its build context holds
# linux/amd64/olm-render, linux/arm64/olm-render).
FROM scratch AS prebuilt
ARG TARGETPLATFORM
COPY ${TARGETPLATFORM}/olm-render /out/olm-render

FROM ${BINARY} AS binary

# distroless static, not its :nonroot tag: that one is the same image with USER 65532 and HOME
# /home/nonroot, a directory owned by that UID, which an arbitrary UID cannot write.
FROM gcr.io/distroless/static-debian12
COPY --from=binary --chown=0:0 --chmod=0755 /out/olm-render /usr/local/bin/olm-render
ENV PATH=/usr/local/bin \
    HOME=/tmp \
    XDG_CACHE_HOME=/tmp/.cache
USER 65532:0
ENTRYPOINT ["olm-render", "fn"]
