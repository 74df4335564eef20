# olm-render as a container: the KRM function for kustomize (entrypoint `olm-render fn`) and the
# Argo CD plugin sidecar image (the sidecar runs Argo CD's cmp-server, which calls
# `olm-render argocd generate`). Build: docker build -t ghcr.io/olm-render/olm-render:v0.1.0 .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/olm-render ./cmd/olm-render

# nonroot (uid 65532): the KRM spec runs functions as nobody; Argo CD's sidecar sets 999.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/olm-render /usr/local/bin/olm-render
ENV PATH=/usr/local/bin
ENTRYPOINT ["olm-render", "fn"]
