#!/usr/bin/env bash
# The native engine under AddressSanitizer + UndefinedBehaviorSanitizer (issue 23), run by
# .ci/run and by hand the same way:
#
#   tests/native/sanitized.sh [--fuzz-seconds N] [--inputs-seconds N] [--jobs N]
#
# 1. The C++ dice stream alone (tests/native/dice_check.cpp), replaying numpy's draws:
#    every draw kind and state round-trip, with no Python in the sanitized binary.
# 2. The whole extension module rules._native (every rules/native source, the bindings and
#    nanobind's library) built with cmake -DFRAY_SANITIZE=ON into a temporary directory,
#    apart from the editable install, and copied into a temporary copy of this checkout
#    (tracked and untracked files as they stand, not ignored ones), which Python then runs
#    from (PYTHONPATH comes before the editable install's .pth line):
#    - python -m pytest tests/native: the differential tests of the reach search, the
#      combatant state, the records, the queries, the battle state and the legal
#      actions, the dice stream, the engine switch and fallback, the native agents and
#      odds; and the native env (observation, mask, step, the batched vector env), the
#      in-engine battles and MCTS rounds (tests/env, tests/experiments, tests/agents);
#      and the hostile saves (tests/hostile/test_saves.py, test_save_mutations.py: the
#      crafted saves, the native binding's checks, mutated saves on both engines);
#    - a bounded `fray fuzz --differential` campaign (both engines on the same actions,
#      compared at every decision), shipped and generated scenarios (default 30 s);
#    - a bounded `fray fuzz --inputs` campaign (mutated saves loaded and played on both
#      engines, each in a sanitized worker process; default 30 s).
# Any sanitizer finding fails the script: the first report stops its process
# (-fno-sanitize-recover=all), which fails its test. pytest's usual capture would swallow
# the report of a worker that dies, so AddressSanitizer writes every process's reports
# (pytest's workers and their subprocesses included) under the temporary directory, printed
# at the end (a report there fails the script even if no test noticed), and pytest
# captures only Python's sys.stderr, so UndefinedBehaviorSanitizer's reports (gcc's
# runtime ignores log_path) reach the terminal.
set -euo pipefail

fuzz_seconds=30
inputs_seconds=30
jobs=2
while (($#)); do
    case "$1" in
        --fuzz-seconds) fuzz_seconds="$2"; shift 2 ;;
        --inputs-seconds) inputs_seconds="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "sanitized.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
reports="$work/reports"
mkdir "$reports"
finish() {
    local status=$?
    if compgen -G "$reports/*" > /dev/null; then
        for report in "$reports"/*; do
            echo "== $(basename "$report")"
            cat "$report"
        done
        echo "sanitized.sh: the sanitizers reported the errors above" >&2
        status=1
    fi
    rm -rf "$work"
    exit "$status"
}
trap finish EXIT
started=$SECONDS
sanitize_flags=(-fsanitize=address,undefined -fno-sanitize-recover=all
                -fno-omit-frame-pointer -O1 -g)

# 1. The dice stream, about 10 s.
g++ -std=c++20 -Wall -Wextra -Werror "${sanitize_flags[@]}" -I"$root/rules/native/core" \
    "$root/rules/native/core/dice.cpp" "$root/tests/native/dice_check.cpp" -o "$work/dice_check"
python "$root/tests/native/dice_vectors.py" 20000 | "$work/dice_check"

# 2. The module, built from a copy of the checkout (the longest step with the tests).
checkout="$work/checkout"
mkdir "$checkout"
git -C "$root" ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' path; do
          if [[ -e "$root/$path" ]]; then printf '%s\0' "$path"; fi  # not deleted ones
      done \
    | tar -C "$root" --null -T - -cf - | tar -C "$checkout" -xf -
# CMake and ninja from the Python packages where installed (pyproject.toml's build
# requirements, which .ci/run installs), else the machine's.
cmake=cmake
if python -c 'import cmake' 2> /dev/null; then
    cmake=$(python -c 'import cmake, os; print(os.path.join(cmake.CMAKE_BIN_DIR, "cmake"))')
fi
generator=()
if python -c 'import ninja' 2> /dev/null; then
    generator=(-G Ninja -DCMAKE_MAKE_PROGRAM="$(python -c 'import ninja, os; print(os.path.join(ninja.BIN_DIR, "ninja"))')")
elif command -v ninja > /dev/null; then
    generator=(-G Ninja)
fi
if ! "$cmake" -S "$checkout" -B "$work/build" "${generator[@]}" -DFRAY_SANITIZE=ON \
        -DPython_EXECUTABLE="$(python -c 'import sys; print(sys.executable)')" > "$work/build.log" 2>&1 \
    || ! "$cmake" --build "$work/build" -j "$jobs" >> "$work/build.log" 2>&1; then
    cat "$work/build.log"
    echo "sanitized.sh: the sanitized build failed" >&2
    exit 1
fi
cp "$work"/build/_native*.so "$checkout/rules/"
echo "sanitized build of rules._native: $((SECONDS - started)) s"

# Python is not built with the sanitizers, so their runtime is preloaded, and libstdc++
# with it: AddressSanitizer resolves the C++ runtime's __cxa_throw when it starts, and
# Python loads libstdc++ only later (with the module), so every C++ exception would
# otherwise stop the process.
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$work/build/CMakeCache.txt")
preload=()
for library in libasan.so libstdc++.so.6; do
    path=$("$compiler" -print-file-name="$library")
    if [[ ! -e "$path" ]]; then
        echo "sanitized.sh: $compiler has no $library" >&2
        exit 1
    fi
    preload+=("$path")
done
sanitized_python() {
    # detect_leaks=0: CPython does not free everything at exit, by design.
    # PYTHONMALLOC=malloc: Python's objects on the sanitized heap too, not in pymalloc's
    # arenas, so a bad read or write of them from C++ is caught.
    (cd "$checkout" && env LD_PRELOAD="$(IFS=:; echo "${preload[*]}")" \
        ASAN_OPTIONS="detect_leaks=0:log_path=$reports/asan" \
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        PYTHONMALLOC=malloc PYTHONPATH="$checkout" FRAY_ENGINE=native TQDM_DISABLE=1 \
        python "$@")
}
sanitized_python -c "
import rules._native as native, rules.engine as engine
if not native.__file__.startswith('$checkout/') or engine.resolve() != 'native':
    raise SystemExit(f'not the sanitized module: {native.__file__}')"
sanitized_python -m pytest -q -p no:cacheprovider -n "$jobs" --capture=sys --engine native \
    tests/native tests/env/test_native_env.py tests/env/test_vector_env.py \
    tests/experiments/test_native_play.py tests/agents/test_mcts_native.py \
    tests/hostile/test_saves.py tests/hostile/test_save_mutations.py
echo "tests/native, the native env, play, search and the hostile saves under the sanitizers: ok ($((SECONDS - started)) s so far)"
sanitized_python -m experiments.cli fuzz --differential --seconds "$fuzz_seconds" \
    --generated --seed 0 --out "$work/fuzz"
sanitized_python -m experiments.cli fuzz --inputs --seconds "$inputs_seconds" --seed 0 \
    --out "$work/inputs"
if compgen -G "$reports/*" > /dev/null; then exit 1; fi  # finish prints them
echo "sanitized run: ok, no sanitizer reports ($((SECONDS - started)) s)"
