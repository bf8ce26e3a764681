# mono_ms: milliseconds on the boot-time clock (/proc/uptime). Test scripts measure elapsed time
# and deadlines with it, never with `date`: CI machines step their wall clock (NTP), which once made
# a 1.8 s test measure itself at 8.8 s.
mono_ms() {
  local up _rest
  read -r up _rest < /proc/uptime
  echo $(( 10#${up/./} * 10 ))
}
