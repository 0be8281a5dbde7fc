# syntax=docker/dockerfile:1
# Multi-stage build: a static binary (no cgo) in a distroless image that runs as
# a non-root user and needs no writable root filesystem. With no --tree the
# binary serves its built-in demo tree, so `docker run` works with no volume.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/governanced ./cmd/governanced \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/celine-governance ./cmd/celine-governance

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/governanced /out/celine-governance /usr/local/bin/
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/governanced"]
CMD ["serve", "--addr", ":8080", "--log-format", "json"]
