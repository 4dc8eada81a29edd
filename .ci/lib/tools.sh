# shellcheck shell=bash
# Programs the test suite runs besides Node: terraform and kubectl (test/helpers/required-tools.ts).
# On CI a missing one fails the tests instead of skipping them, so .ci/run installs whichever PATH
# lacks, at a pinned version, checksum-verified, into a cache directory it puts first on PATH.
# Sourced by .ci/run; test/unit/ci/tools.test.ts runs the installers against fake releases.

CI_TERRAFORM_VERSION=${CI_TERRAFORM_VERSION:-1.11.4}
CI_KUBECTL_VERSION=${CI_KUBECTL_VERSION:-v1.32.4}
# Where the releases are; the test points these at a local server.
CI_TERRAFORM_RELEASES=${CI_TERRAFORM_RELEASES:-https://releases.hashicorp.com/terraform}
CI_KUBECTL_RELEASES=${CI_KUBECTL_RELEASES:-https://dl.k8s.io/release}

# The release architecture of this machine (amd64 or arm64).
ci_release_arch() {
  case "$(uname -m)" in
    x86_64 | amd64) echo amd64 ;;
    aarch64 | arm64) echo arm64 ;;
    *)
      echo "ci: no terraform/kubectl release for machine $(uname -m)" >&2
      return 1
      ;;
  esac
}

# Extracts one file of a zip archive into a directory, with unzip or else Python's zipfile.
ci_unzip_one() {
  local archive=$1 member=$2 dir=$3
  if command -v unzip >/dev/null; then
    unzip -o -q "$archive" "$member" -d "$dir"
  elif command -v python3 >/dev/null; then
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])' \
      "$archive" "$member" "$dir"
  else
    echo "ci: need unzip or python3 to unpack $archive" >&2
    return 1
  fi
}

# Installs Terraform CI_TERRAFORM_VERSION into $1, verified against HashiCorp's SHA256SUMS.
ci_install_terraform() {
  local bin=$1 arch zip base work
  arch=$(ci_release_arch) || return 1
  zip="terraform_${CI_TERRAFORM_VERSION}_linux_${arch}.zip"
  base="$CI_TERRAFORM_RELEASES/$CI_TERRAFORM_VERSION"
  work=$(mktemp -d)
  echo "ci: installing Terraform $CI_TERRAFORM_VERSION into $bin"
  if curl -fsSL --retry 3 --connect-timeout 30 -o "$work/$zip" "$base/$zip" &&
    curl -fsSL --retry 3 --connect-timeout 30 -o "$work/SHA256SUMS" "$base/terraform_${CI_TERRAFORM_VERSION}_SHA256SUMS" &&
    grep "  $zip\$" "$work/SHA256SUMS" >"$work/expected" &&
    (cd "$work" && sha256sum --check --status expected) &&
    ci_unzip_one "$work/$zip" terraform "$work/unpacked"; then
    mkdir -p "$bin" && install -m 0755 "$work/unpacked/terraform" "$bin/terraform"
  else
    echo "ci: could not download and verify $base/$zip" >&2
    rm -rf "$work"
    return 1
  fi
  rm -rf "$work"
}

# Installs kubectl CI_KUBECTL_VERSION into $1, verified against its published .sha256.
ci_install_kubectl() {
  local bin=$1 arch url work
  arch=$(ci_release_arch) || return 1
  url="$CI_KUBECTL_RELEASES/$CI_KUBECTL_VERSION/bin/linux/$arch/kubectl"
  work=$(mktemp -d)
  echo "ci: installing kubectl $CI_KUBECTL_VERSION into $bin"
  if curl -fsSL --retry 3 --connect-timeout 30 -o "$work/kubectl" "$url" &&
    curl -fsSL --retry 3 --connect-timeout 30 -o "$work/kubectl.sha256" "$url.sha256" &&
    echo "$(tr -d '[:space:]' <"$work/kubectl.sha256")  kubectl" >"$work/expected" &&
    (cd "$work" && sha256sum --check --status expected); then
    mkdir -p "$bin" && install -m 0755 "$work/kubectl" "$bin/kubectl"
  else
    echo "ci: could not download and verify $url" >&2
    rm -rf "$work"
    return 1
  fi
  rm -rf "$work"
}

# Puts $1 first on PATH and installs there whichever of terraform and kubectl PATH lacks.
ci_ensure_tools() {
  local bin=$1
  PATH="$bin:$PATH"
  export PATH
  command -v terraform >/dev/null || ci_install_terraform "$bin" || return 1
  command -v kubectl >/dev/null || ci_install_kubectl "$bin" || return 1
}
