# Sourced by ./mvnw, ./lutra and .ci/run: make sure JAVA_HOME names a JDK 21 or newer.
# Order: JAVA_HOME if it is 21+, else the `javac` on PATH if it is 21+, else the newest
# JDK 21+ under /usr/lib/jvm (or /usr/java, /opt/java). Fails with a clear message otherwise.
lutra_jdk_major() { # $1 = a JDK home; prints its feature version, or 0
  local rel="$1/release" v
  [ -x "$1/bin/javac" ] || { echo 0; return; }
  if [ -f "$rel" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$rel")
  else
    v=$("$1/bin/javac" -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p')
  fi
  echo "${v:-0}"
}
lutra_find_jdk() {
  local cand best="" best_v=0 v
  if [ -n "${JAVA_HOME:-}" ] && [ "$(lutra_jdk_major "$JAVA_HOME")" -ge 21 ]; then return 0; fi
  if command -v javac >/dev/null 2>&1; then
    cand=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    if [ "$(lutra_jdk_major "$cand")" -ge 21 ]; then export JAVA_HOME="$cand"; return 0; fi
  fi
  for cand in /usr/lib/jvm/* /usr/java/* /opt/java/*; do
    [ -d "$cand" ] || continue
    v=$(lutra_jdk_major "$cand")
    if [ "$v" -gt "$best_v" ]; then best_v=$v; best=$cand; fi
  done
  if [ "$best_v" -ge 21 ]; then export JAVA_HOME="$best"; return 0; fi
  echo "Lutra needs a JDK 21 or newer. None found: JAVA_HOME=${JAVA_HOME:-<unset>}," \
       "javac on PATH is $(command -v javac || echo missing), nothing suitable under /usr/lib/jvm." >&2
  echo "Install one (e.g. 'apt-get install openjdk-21-jdk') or point JAVA_HOME at it." >&2
  return 1
}
lutra_find_jdk || exit 1
# JDK 24+ warns about sun.misc.Unsafe (protobuf, Guice inside Maven) and native access (jansi);
# those flags do not exist on 21, so they are added only where they apply.
if [ "$(lutra_jdk_major "$JAVA_HOME")" -ge 24 ]; then
  LUTRA_JVM_QUIET="--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
  case " ${MAVEN_OPTS:-} " in *unsafe-memory-access*) ;; *) export MAVEN_OPTS="${MAVEN_OPTS:-} $LUTRA_JVM_QUIET" ;; esac
else
  LUTRA_JVM_QUIET=""
fi
