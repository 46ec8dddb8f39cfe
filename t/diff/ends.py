"""The parent's ends of a run's descriptors, which execute.py's poll loop
serves (step when ready or when a pause ends): the feeder of a stdin
pipe, FIFO or socket, writing the scenario's data in random chunks with
pauses; the readers of the outputs (stdout, stderr, a FIFO operand),
each draining by its plan and keeping what it got.
"""

import fcntl
import os
import random
import socket

import data


class Reader:
	"""The parent's end of an output: drains by plan, keeps what it got."""
	def __init__(self, name, fd, plan, record=False):
		self.name, self.fd, self.record = name, fd, record
		self.got = bytearray()
		self.drain = plan.get('drain', 'all')
		self.k = plan.get('k', 0)
		self.bufsize = plan.get('bufsize', 1 << 20)
		self.rng = random.Random('drain:%s' % plan.get('drain_seed', 0))
		self.wake = 0.0
		# drain 'paced': reads of READ bytes, a pause of SECONDS once
		# OFFSET bytes were read, for each [OFFSET, SECONDS] of PAUSES;
		# closed after K bytes if K.
		self.read = plan.get('read', 1 << 20)
		self.pauses = [list(x) for x in plan.get('pauses', [])]
		os.set_blocking(fd, False)

	def step(self, now):
		"""One read if due; False once this reader is done."""
		if now < self.wake:
			return True
		if self.drain == 'paced':
			return self._paced(now)
		n = self.bufsize if self.record else {'all': 1 << 20,
			'random': self.rng.randint(1, 70000), 'slow': 4096,
			'close': 1 << 20}[self.drain]
		if self.drain == 'close' and not self.record:
			n = min(n, self.k - len(self.got))
		if self.drain == 'close' and len(self.got) >= self.k:
			return self.close()
		try:
			b = os.read(self.fd, n)
		except BlockingIOError:
			return True
		except ConnectionResetError:
			# A datagram socket reports its peer's end once, then
			# still gives what was queued.
			if self.record:
				return True
			b = b''
		if not b:
			return self.close()
		self.got += b
		if self.drain == 'slow' and self.rng.random() < 0.1:
			self.wake = now + 0.001 * self.rng.randint(1, 5)
		if self.drain == 'close' and len(self.got) >= self.k:
			return self.close()
		return True

	def _paced(self, now):
		n = self.read
		if self.pauses:
			at, seconds = self.pauses[0]
			if len(self.got) >= at:
				self.pauses.pop(0)
				self.wake = now + seconds
				return True
			n = min(n, at - len(self.got))
		if self.k:
			if len(self.got) >= self.k:
				return self.close()
			n = min(n, self.k - len(self.got))
		try:
			b = os.read(self.fd, n)
		except BlockingIOError:
			return True
		except ConnectionResetError:
			b = b''
		if not b:
			return self.close()
		self.got += b
		if self.k and len(self.got) >= self.k:
			return self.close()
		return True

	def _limit(self):
		"""How many bytes this reader takes at most, or None."""
		if self.drain == 'close' or (self.drain == 'paced' and self.k):
			return self.k
		return None

	def finish(self):
		"""The program has ended: take what is left, unless closed."""
		if self.fd is None:
			return
		limit = self._limit()
		while limit is None or len(self.got) < limit:
			n = self.bufsize if self.record else 1 << 20
			if limit is not None and not self.record:
				n = limit - len(self.got)
			try:
				b = os.read(self.fd, n)
			except BlockingIOError:
				break
			except ConnectionResetError:
				if self.record:
					continue
				break
			if not b:
				break
			self.got += b
		self.close()

	def close(self):
		if self.fd is not None:
			os.close(self.fd)
			self.fd = None
		return False


class Feeder:
	"""The parent's end of stdin: writes the data in random chunks, with
	a few pauses, then closes (a socket is shut down for writing)."""
	def __init__(self, fd, spec, sock=None):
		self.fd, self.sock = fd, sock
		self.data = memoryview(data.make(spec['data']))
		self.pos = 0
		self.rng = random.Random('feed:%s' % spec['feed_seed'])
		n = len(self.data)
		self.pauses = sorted(self.rng.randint(0, n) for _ in range(spec['pauses']))
		self.wake = 0.0
		self.pipe_size = None
		self.chunks = spec.get('chunks')	# the sizes of its writes, if given
		os.set_blocking(fd, False)

	def step(self, now):
		if now < self.wake:
			return True
		if self.pauses and self.pos >= self.pauses[0]:
			self.pauses.pop(0)
			self.wake = now + 0.001 * self.rng.randint(1, 30)
			return True
		if self.pos >= len(self.data):
			return self.close()
		if self.chunks:
			n = self.rng.choice(self.chunks)
		else:
			n = self.rng.choice([1, 100, 4096, 65536, self.rng.randint(1, 300000)])
		try:
			self.pos += os.write(self.fd, self.data[self.pos:self.pos + n])
		except BlockingIOError:
			pass
		except (BrokenPipeError, ConnectionResetError):
			return self.close()
		return True

	def close(self):
		if self.fd is not None:
			if self.sock is None:
				try:
					self.pipe_size = fcntl.fcntl(self.fd, fcntl.F_GETPIPE_SZ)
				except OSError:
					pass
			else:
				self.sock.shutdown(socket.SHUT_WR)
				self.sock.close()
			os.close(self.fd)
			self.fd = None
		return False
