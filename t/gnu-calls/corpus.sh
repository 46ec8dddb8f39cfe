# The command lines whose system calls GNU 9.11 makes, recorded in this
# directory (NAME.calls, scripts/record-gnu-calls) and checked by t2014.
# Each is one call of
#
#	gnu_case NAME EXTRA SNIPPET [LIKE]
#
# SNIPPET, a shell command, runs the command under test as "$W $B/CMD":
# W is what runs it (strace, a filter, or nothing), B the directory of
# the commands; EXTRA, spate's own options (--progress), is $X in it and
# empty for GNU's.  It reads $IN (a file of text and binary bytes), leaves
# the command's standard output in out (where a pipe or a file takes it)
# and its status in st, and writes any files as f1, f2, f3; SYS_CAT is
# the system's cat, that feeds or drains a pipe.  $PY is
# python3, $SOCKIN and $SOCKOUT its programs that make standard input or
# output a stream socket (t/lib-fd.sh); a case with $PY needs PYTHON3.
# A case with EXTRA has no GNU command line and no list of its own:
# LIKE names the case whose command line it is without EXTRA.

gnu_case yes-head '' '{ $W $B/yes; echo $? >st; } | head -c 1000000 >out'
gnu_case yes-file '' '(ulimit -f 1000; $W $B/yes >out; echo $? >st)'
gnu_case yes-full '' '$W $B/yes >/dev/full 2>/dev/null; echo $? >st'
gnu_case yes-text '' '{ $W $B/yes abc def; echo $? >st; } | head -c 777777 >out'

gnu_case cat-fp '' '{ $W $B/cat $X "$IN"; echo $? >st; } | $SYS_CAT >out'
gnu_case cat-pp '' '$SYS_CAT "$IN" | { $W $B/cat; echo $? >st; } | $SYS_CAT >out'
gnu_case cat-ff '' '$W $B/cat "$IN" >out; echo $? >st'
gnu_case cat-fa '' 'echo first >out; $W $B/cat "$IN" >>out; echo $? >st'
gnu_case cat-pf '' '$SYS_CAT "$IN" | $W $B/cat >out; echo $? >st'
gnu_case cat-fn '' '$W $B/cat "$IN" >/dev/null; echo $? >st'
gnu_case cat-sp '' '{ $PY -I -S -c "$SOCKIN" $W $B/cat <"$IN"; echo $? >st; } | $SYS_CAT >out'
gnu_case cat-fs '' '$PY -I -S "$SOCKOUT" $W $B/cat "$IN" >out; echo $? >st'
gnu_case cat-n '' '{ $W $B/cat -n "$IN"; echo $? >st; } | $SYS_CAT >out'
gnu_case cat-A '' '{ $W $B/cat -A "$IN"; echo $? >st; } | $SYS_CAT >out'
gnu_case cat-v '' '{ $W $B/cat -v "$IN"; echo $? >st; } | $SYS_CAT >out'
gnu_case cat-s '' '{ $W $B/cat -s "$IN"; echo $? >st; } | $SYS_CAT >out'
gnu_case cat-npf '' '$SYS_CAT "$IN" | $W $B/cat -n >out; echo $? >st'
gnu_case cat-progress --progress '$W $B/cat $X "$IN" >out 2>/dev/null; echo $? >st' cat-ff

gnu_case tee-pp '' '$SYS_CAT "$IN" | { $W $B/tee f1; echo $? >st; } | $SYS_CAT >out'
gnu_case tee-3 '' '$SYS_CAT "$IN" | { $W $B/tee f1 f2 f3; echo $? >st; } | $SYS_CAT >out'
gnu_case tee-a '' 'echo first >f1; $SYS_CAT "$IN" | $W $B/tee -a f1 >out; echo $? >st'
gnu_case tee-p '' '$SYS_CAT "$IN" | { $W $B/tee -p f1; echo $? >st; } | $SYS_CAT >out'
gnu_case tee-fn '' '$W $B/tee f1 <"$IN" >/dev/null; echo $? >st'
gnu_case tee-ff '' '$W $B/tee f1 f2 <"$IN" >out; echo $? >st'
gnu_case tee-1 '' '$SYS_CAT "$IN" | { $W $B/tee; echo $? >st; } | $SYS_CAT >out'
gnu_case tee-sp '' '{ $PY -I -S -c "$SOCKIN" $W $B/tee f1 <"$IN"; echo $? >st; } | $SYS_CAT >out'
gnu_case tee-fs '' '$PY -I -S "$SOCKOUT" $W $B/tee f1 <"$IN" >out; echo $? >st'
gnu_case tee-progress --progress '$SYS_CAT "$IN" | $W $B/tee $X f1 f2 >out 2>/dev/null; echo $? >st'
